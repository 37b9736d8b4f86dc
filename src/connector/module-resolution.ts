/**
 * Connector modules outside the gateway's install (`module: ./my-connector.ts`
 * next to a settings file in /etc/threadgate, say) import what the guide
 * shows — `threadgate/connector`, `zod` — but Node resolves a bare specifier
 * from the importing file's folder, where neither is installed: the load
 * failed with `Cannot find package 'zod'`.
 *
 * One in-thread resolve hook (`module.registerHooks`, synchronous, no loader
 * thread) fixes that: a bare specifier that does not resolve from the
 * importer is resolved once more from the gateway's own package, so
 * `threadgate/connector` is the gateway's own API module (the very classes
 * its job runner checks with `instanceof`) and `zod`, `undici`… are the
 * versions the gateway runs with. A package the connector installed beside
 * itself still wins: the hook only answers what failed.
 *
 * The same hook lets `serve --watch` load a connector's module again: the
 * module is imported as `<file>?tg-gen=N`, and every file of its own folder
 * it imports (at any depth, but not its node_modules) gets the same `N`, so
 * an edit of a helper beside the module is loaded too, not the cached copy.
 */
import { registerHooks } from 'node:module';

/** The gateway's package.json: bare specifiers resolve from here as a fallback. */
const GATEWAY_PACKAGE = new URL('../../package.json', import.meta.url).href;

let registered = false;

/** Each reload generation's folder (a file: URL ending in `/`): the files under it are loaded again in that generation. */
const generations = new Map<string, string>();
let lastGeneration = 0;

/** A new generation for the module at `fileUrl`: its URL to import, with the query the hook passes on. */
export function nextGenerationUrl(fileUrl: string): string {
  lastGeneration += 1;
  generations.set(String(lastGeneration), new URL('.', fileUrl).href);
  return `${fileUrl}?tg-gen=${lastGeneration}`;
}

/** `url` in the generation of `parentURL`, when the parent was loaded in one and `url` lies in its folder. */
function inGeneration(url: string, parentURL: string | undefined): string {
  if (parentURL === undefined || !url.startsWith('file:') || url.includes('?')) return url;
  const generation = /[?&]tg-gen=(\d+)/.exec(parentURL)?.[1];
  const folder = generation === undefined ? undefined : generations.get(generation);
  if (folder === undefined || !url.startsWith(folder) || url.slice(folder.length).split('/').includes('node_modules')) return url;
  return `${url}?tg-gen=${generation}`;
}

/** A bare specifier: a package name (`zod`, `@scope/pkg/sub`), not a path, URL or `node:` builtin. */
export function isBareSpecifier(specifier: string): boolean {
  return !/^(?:\.{0,2}\/|[a-z][a-z0-9+.-]*:)/i.test(specifier);
}

/** Registers the fallback once per process; harmless to call again. */
export function resolveConnectorImportsFromGateway(): void {
  if (registered) return;
  registered = true;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      try {
        const resolved = nextResolve(specifier, context);
        const url = inGeneration(resolved.url, context.parentURL);
        return url === resolved.url ? resolved : { ...resolved, url };
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (!isBareSpecifier(specifier) || (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED')) throw err;
        if (context.parentURL === GATEWAY_PACKAGE) throw err;
        return nextResolve(specifier, { ...context, parentURL: GATEWAY_PACKAGE });
      }
    },
  });
}
