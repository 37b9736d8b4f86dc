/**
 * The files around a scaffolded connector's module: package.json (the
 * gateway as a dependency from the install `connector new` ran from, and
 * the versions of zod, vitest and TypeScript that install uses), a
 * tsconfig.json with the gateway's compiler options, the example settings
 * `serve` and `connector test` take as they are, a README, a .gitignore.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Names } from './names.ts';

export type ScaffoldKind = 'webhook' | 'poller' | 'ticket';

/** The gateway's own install: its folder, and the version of a package as it is installed there (else as declared). */
export interface GatewayInstall {
  root: string;
  versionOf(name: string): string;
}

export function gatewayInstall(root: string): GatewayInstall {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  return {
    root,
    versionOf(name) {
      const installed = join(root, 'node_modules', name, 'package.json');
      if (existsSync(installed)) return (JSON.parse(readFileSync(installed, 'utf8')) as { version: string }).version;
      const declared = manifest.dependencies?.[name] ?? manifest.devDependencies?.[name];
      if (declared === undefined) throw new Error(`the gateway's package.json does not name ${name}`);
      return declared;
    },
  };
}

export function packageJson({ type }: Names, gateway: GatewayInstall): string {
  const manifest = {
    name: `threadgate-connector-${type}`,
    version: '0.1.0',
    private: true,
    type: 'module',
    description: `A threadgate connector for ${type}`,
    scripts: { test: 'vitest run', typecheck: 'tsc --noEmit', 'contract': `threadgate connector test ./${type}.ts` },
    dependencies: { threadgate: `file:${gateway.root}`, zod: gateway.versionOf('zod') },
    devDependencies: {
      '@types/node': gateway.versionOf('@types/node'),
      typescript: gateway.versionOf('typescript'),
      vitest: gateway.versionOf('vitest'),
    },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** The gateway's compiler options (it is type-checked from its sources), for this folder's files. */
export function tsconfigJson(): string {
  const config = {
    compilerOptions: {
      target: 'esnext',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      lib: ['esnext'],
      types: ['node'],
      strict: true,
      noUncheckedIndexedAccess: true,
      noImplicitOverride: true,
      noFallthroughCasesInSwitch: true,
      erasableSyntaxOnly: true,
      verbatimModuleSyntax: true,
      allowImportingTsExtensions: true,
      resolveJsonModule: true,
      isolatedModules: true,
      skipLibCheck: true,
      noEmit: true,
    },
    include: ['*.ts'],
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

export function settingsExample({ type, env }: Names, kind: ScaffoldKind): string {
  const own =
    kind === 'webhook'
      ? [`    inbound_secret: \${${env}_INBOUND_SECRET:-change-me-to-a-long-secret}`, `    reply_url: \${${env}_REPLY_URL:-http://127.0.0.1:9/replies}`]
      : kind === 'ticket'
        ? [`    url: \${${env}_URL:-http://127.0.0.1:9}`, `    api_token: \${${env}_API_TOKEN:-change-me}`, '    poll_seconds: 30']
        : [
          `    feed_url: \${${env}_FEED_URL:-http://127.0.0.1:9/feed}`,
          `    reply_url: \${${env}_REPLY_URL:-http://127.0.0.1:9/replies}`,
          `    api_token: \${${env}_API_TOKEN:-change-me}`,
          '    poll_seconds: 10',
        ];
  return [
    `# A whole settings file for trying the ${type} connector:`,
    '#   npx threadgate serve --config settings.example.yaml      (no platform.url: the embedded sandbox plays the platform)',
    `#   npx threadgate connector test ./${type}.ts                (takes the entry below)`,
    '# Each ${VAR:-fallback} takes the environment variable when it is set.',
    'store:',
    '  path: ./data/threadgate.db',
    'connectors:',
    `  - name: ${type}`,
    `    type: ${type}`,
    `    module: ./${type}.ts`,
    ...own,
    '',
  ].join('\n');
}

export function readme({ type }: Names, kind: ScaffoldKind): string {
  const what = {
    webhook: `${type} POSTs a customer's message to \`/connectors/${type}/messages\`, signed with an HMAC-SHA256 of the body in \`x-${type}-signature\`; every agent reply is POSTed to \`reply_url\``,
    poller: `it reads ${type}'s feed of new messages every \`poll_seconds\`; every agent reply is POSTed to \`reply_url\``,
    ticket: `a ${type} help desk as a ticket queue, on the gateway's ticket seam (\`threadgate/ticket\`): \`${type}-adapter.ts\` reads and writes the desk's API, \`${type}-stand-in.ts\` plays the desk in the tests, and \`ticketAdapterContract\` checks the adapter's rules`,
  }[kind];
  return `# The ${type} connector

A threadgate connector: ${what}.
Made by \`threadgate connector new ${type} --kind ${kind}\`.

\`\`\`sh
npm install                  # the gateway comes from the install that made this folder
npm test                     # the contract every connector must pass, and the round trip
npx tsc --noEmit             # types, the gateway's included
npm run contract             # the contract from the command line: threadgate connector test ./${type}.ts
npx threadgate serve --config settings.example.yaml
\`\`\`

\`${type}.ts\` is the connector; \`${type}.test.ts\` tests it with \`threadgate/testing\`
(a recording context, a real gateway with its sandbox in the test's process,
the contract suite). To run it beside other connectors, name this folder's
module in their settings: \`module: ./${type}/${type}.ts\`. The guide:
docs/connectors.md of the gateway.
`;
}

export const GITIGNORE = 'node_modules/\ndata/\n';
