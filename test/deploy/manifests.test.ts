/**
 * The deployment files of deploy/: the compose file is valid against the
 * Compose Specification's JSON schema (deploy/schemas/, with Ajv), each
 * Kubernetes object against the Kubernetes API's schema of its kind
 * (kubernetes-models), and a broken copy of each fails, so the checks can
 * fail. Then what no schema knows: the probe and health-check paths are
 * routes a real gateway answers 200, every port matches the settings' port,
 * every `${VAR}` the settings and the compose file use is provided (by the
 * Secret, the Deployment's env, the compose service or .env.example), the
 * settings load as the gateway loads them, and the ConfigMap carries the
 * compose file's settings.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadSettings } from '../../src/config/load.ts';
import { loadConnectors } from '../../src/connector/registry.ts';
import { startTestGateway } from '../support/gateway.ts';
import { tempDir } from '../support/temp-dir.ts';
import { deployPath, readDeploy, ROOT, yamlDocsOf, yamlOf } from './deploy-files.ts';
import { kubernetesProblems, type K8sObject } from './kubernetes-schemas.ts';

type Service = Record<string, any>;
const compose = () => yamlOf<{ services: Record<string, Service>; configs: Record<string, { content: string }> }>('compose', 'compose.yaml');
const composeSchema = JSON.parse(readDeploy('schemas', 'compose-spec.schema.json')) as object;
const validateCompose = new Ajv({ strict: false, allErrors: true, validateSchema: false }).compile(composeSchema);
const composeProblems = (doc: unknown): string[] => (validateCompose(doc) ? [] : (validateCompose.errors ?? []).map((e) => `${e.instancePath} ${e.message}`));

const objects = (): K8sObject[] =>
  readdirSync(deployPath('kubernetes'))
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((f) => yamlDocsOf('kubernetes', f).map((doc) => ({ ...(doc as object), file: f }) as K8sObject));
const objectOf = (kind: string): Record<string, any> => {
  const found = objects().filter((o) => o.kind === kind);
  expect(found.map((o) => o.kind), kind).toEqual([kind]);
  return found[0]!;
};
const container = () => objectOf('Deployment').spec.template.spec.containers[0] as Record<string, any>;
/** The variables `${VAR}` (or `${VAR:?…}`) in the values of a YAML text, its comments left out. */
const placeholders = (text: string) => new Set([...JSON.stringify(parse(text)).matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!));
const envExample = () => new Map(readDeploy('compose', '.env.example').split('\n').filter((l) => /^[A-Z_]+=/.test(l)).map((l) => l.split('=', 2) as [string, string]));
/** The settings as the gateway loads them, from a file with `text` and `env`. */
const loaded = (text: string, env: Record<string, string>) => {
  const file = join(tempDir(), 'threadgate.yaml');
  writeFileSync(file, text);
  return loadSettings({ path: file, env });
};

describe('deploy/compose/compose.yaml against the Compose Specification', () => {
  it('is valid, with the vendored schema the one deploy/schemas/README.md names', () => {
    expect(composeProblems(compose())).toEqual([]);
    const sha = createHash('sha256').update(readFileSync(deployPath('schemas', 'compose-spec.schema.json'))).digest('hex');
    expect(readDeploy('schemas', 'README.md')).toContain(sha);
  });

  it('fails on a broken copy: a misspelt key and a wrong type', () => {
    const broken = compose();
    broken.services.threadgate!.replica = 2;
    broken.services.lb!.ports = { https: 443 };
    expect(composeProblems(broken)).toEqual(expect.arrayContaining(['/services/threadgate must NOT have additional properties', '/services/lb/ports must be array']));
  });

  it('runs PostgreSQL, two replicas of the image on it behind nginx, each checked on /readyz', () => {
    const { db, threadgate, lb } = compose().services as Record<string, Service>;
    expect(db!.image).toMatch(/^postgres:\d+/);
    expect(threadgate!.image).toBe('threadgate:latest');
    expect(threadgate!.deploy.replicas).toBe(2);
    expect(threadgate!.depends_on.db.condition).toBe('service_healthy');
    expect(threadgate!.healthcheck.test.join(' ')).toContain('http://127.0.0.1:8080/readyz');
    expect(lb!.image).toMatch(/^nginx:/);
    const url = new URL(threadgate!.environment.THREADGATE_STORE_URL.replace(/\$\{PG_PASSWORD[^}]*\}/, 'pw'));
    expect([url.hostname, url.username, url.pathname]).toEqual(['db', db!.environment.POSTGRES_USER, `/${db!.environment.POSTGRES_DB}`]);
  });

  it('takes every ${VAR} it names from .env.example, and gives the gateway every ${VAR} of its settings', () => {
    const env = envExample();
    expect([...placeholders(readDeploy('compose', 'compose.yaml'))].filter((v) => !env.has(v))).toEqual([]);
    const given = Object.keys(compose().services.threadgate!.environment);
    expect([...placeholders(readDeploy('compose', 'threadgate.yaml'))].filter((v) => !given.includes(v))).toEqual([]);
  });
});

describe('deploy/kubernetes against the Kubernetes API schemas', () => {
  it('holds a Deployment, a Service, a PodDisruptionBudget, a ConfigMap and a Secret, each valid', () => {
    expect(objects().map((o) => o.kind).sort()).toEqual(['ConfigMap', 'Deployment', 'PodDisruptionBudget', 'Secret', 'Service']);
    expect(objects().flatMap(kubernetesProblems)).toEqual([]);
  });

  it('fails on broken copies: a port that is no integer, a PDB without its budget type, an unknown kind', () => {
    const deployment = structuredClone(objectOf('Deployment')) as K8sObject;
    deployment.spec.template.spec.containers[0].ports[0].containerPort = 'eighty';
    expect(kubernetesProblems(deployment)).toEqual([expect.stringContaining('containerPort must be integer')]);
    const pdb = structuredClone(objectOf('PodDisruptionBudget')) as K8sObject;
    pdb.spec.minAvailable = { one: 1 };
    expect(kubernetesProblems(pdb).length).toBeGreaterThan(0);
    expect(kubernetesProblems({ apiVersion: 'v1', kind: 'Sevice', metadata: { name: 'x' }, file: 'x.yaml' })).toEqual(['x.yaml: v1 Sevice is not a kind these files use']);
  });

  it('runs two non-root replicas on a read-only root, with resources, a PDB of 1 and a Service over them', () => {
    const deployment = objectOf('Deployment');
    const pod = deployment.spec.template.spec;
    expect(deployment.spec.replicas).toBe(2);
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(container().securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    expect(container().resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(container().image).toBe(compose().services.threadgate!.image);
    const labels = deployment.spec.template.metadata.labels as Record<string, string>;
    expect(objectOf('PodDisruptionBudget').spec).toEqual({ minAvailable: 1, selector: { matchLabels: labels } });
    expect(objectOf('Service').spec.selector).toEqual(labels);
    expect(container().ports.map((p: { name: string }) => p.name)).toContain(objectOf('Service').spec.ports[0].targetPort);
  });

  it('mounts the ConfigMap where THREADGATE_CONFIG points, and takes the Secret into the environment', () => {
    const mount = container().volumeMounts.find((m: { name: string }) => m.name === 'settings');
    const volume = objectOf('Deployment').spec.template.spec.volumes.find((v: { name: string }) => v.name === 'settings');
    expect(volume.configMap.name).toBe(objectOf('ConfigMap').metadata.name);
    const config = container().env.find((e: { name: string }) => e.name === 'THREADGATE_CONFIG').value as string;
    expect(config).toBe(`${mount.mountPath}/${Object.keys(objectOf('ConfigMap').data)[0]}`);
    expect(container().envFrom).toEqual([{ secretRef: { name: objectOf('Secret').metadata.name } }]);
  });
});

describe('the settings of both', () => {
  const configMapSettings = () => Object.values(objectOf('ConfigMap').data as Record<string, string>)[0]!;
  const secretEnv = () => objectOf('Secret').stringData as Record<string, string>;

  it('are the same settings in the ConfigMap and in deploy/compose/threadgate.yaml', () => {
    expect(parse(configMapSettings())).toEqual(parse(readDeploy('compose', 'threadgate.yaml')));
  });

  it('name only ${VAR}s the Secret or the Deployment provides, and load as the gateway loads them, the store on PostgreSQL', async () => {
    const provided = [...Object.keys(secretEnv()), ...container().env.map((e: { name: string }) => e.name)];
    expect([...placeholders(configMapSettings())].filter((v) => !provided.includes(v))).toEqual([]);
    const { settings } = loaded(configMapSettings(), secretEnv());
    expect(settings.store.url).toBe(secretEnv().THREADGATE_STORE_URL);
    expect(settings.server.host).toBe('0.0.0.0');
    expect((await loadConnectors(settings.connectors, ROOT)).problems).toEqual([]);
    const composed = loaded(readDeploy('compose', 'threadgate.yaml'), { ...Object.fromEntries(envExample()), THREADGATE_STORE_URL: 'postgres://threadgate:pw@db:5432/threadgate' });
    expect(composed.settings.store.url).toBe('postgres://threadgate:pw@db:5432/threadgate');
    // A broken copy is refused: a port that is no number, and a secret the environment lacks.
    const broken = configMapSettings().replace('port: 8080', 'port: eighty');
    expect(() => loaded(broken, { ...secretEnv(), PLATFORM_TOKEN: '' })).toThrow(/server\.port[\s\S]*PLATFORM_TOKEN|PLATFORM_TOKEN[\s\S]*server\.port/);
  });

  it('listen on the port the container, the compose file and the balancer use', () => {
    const { port } = loaded(configMapSettings(), secretEnv()).settings.server;
    expect(container().ports[0].containerPort).toBe(port);
    expect(compose().services.threadgate!.expose).toEqual([String(port)]);
    expect(compose().configs.nginx!.content).toContain(`server threadgate:${port};`);
    expect(readFileSync(join(ROOT, 'Dockerfile'), 'utf8')).toMatch(new RegExp(`^EXPOSE ${port}$`, 'm'));
  });
});

describe('the probe and health-check paths', () => {
  it('are routes a real gateway answers 200 when ready and alive', async () => {
    const composeCheck = /http:\/\/127\.0\.0\.1:\d+(\/\w+)/.exec(compose().services.threadgate!.healthcheck.test.join(' '))![1]!;
    const paths = [container().readinessProbe.httpGet.path, container().livenessProbe.httpGet.path, composeCheck];
    expect(paths).toEqual(['/readyz', '/healthz', '/readyz']);
    const tg = await startTestGateway({ connectors: [] });
    for (const path of paths) expect((await tg.call('GET', path)).status, path).toBe(200);
    expect((await tg.call('GET', '/readyz-not')).status).toBe(404); // an unknown path would fail here
  });
});
