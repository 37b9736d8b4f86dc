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
 */
import { registerHooks } from 'node:module';

/** The gateway's package.json: bare specifiers resolve from here as a fallback. */
const GATEWAY_PACKAGE = new URL('../../package.json', import.meta.url).href;

let registered = false;

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
        return nextResolve(specifier, context);
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (!isBareSpecifier(specifier) || (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'ERR_PACKAGE_PATH_NOT_EXPORTED')) throw err;
        if (context.parentURL === GATEWAY_PACKAGE) throw err;
        return nextResolve(specifier, { ...context, parentURL: GATEWAY_PACKAGE });
      }
    },
  });
}
