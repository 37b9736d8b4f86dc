/**
 * Each Kubernetes object of deploy/kubernetes checked against the API schema
 * of its `apiVersion` and `kind`, with kubernetes-models' validators (compiled
 * with Ajv from the Kubernetes OpenAPI schema). Like the API server's own
 * schema they allow fields they do not know: a misspelt key is caught by the
 * tests that read the keys that matter (manifests.test.ts), not here.
 */
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';

/** A parsed object and the file it came from. */
export type K8sObject = Record<string, any> & { apiVersion: string; kind: string; file: string };

const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  'apps/v1 Deployment': Deployment,
  'v1 Service': Service,
  'v1 ConfigMap': ConfigMap,
  'v1 Secret': Secret,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
};

/** What the schema of the object's kind refuses in it, one line each with its file; a kind not listed is one problem. */
export function kubernetesProblems({ file, ...object }: K8sObject): string[] {
  const key = `${object.apiVersion} ${object.kind}`;
  const Model = MODELS[key];
  if (Model === undefined) return [`${file}: ${key} is not a kind these files use`];
  try {
    new Model(object).validate();
    return [];
  } catch (err) {
    return String((err as Error).message)
      .split('\n')
      .map((line) => `${file}: ${line.trim()}`);
  }
}
