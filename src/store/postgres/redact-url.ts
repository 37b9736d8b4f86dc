/**
 * A PostgreSQL store URL as it may be shown in logs, `store.location` and
 * `config check`: without its password. Apart from the driver, so showing
 * it loads nothing.
 */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unparseable URL)';
  }
}
