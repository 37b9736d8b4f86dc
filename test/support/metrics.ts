/** Reading one series of the gateway's /metrics (Prometheus text). */
import type { TestGateway } from './gateway.ts';

/** A line without the `replica` label a gateway on PostgreSQL adds to every series. */
const withoutReplica = (line: string) => line.replace(/replica="[^"]*",?/, '').replace(/,}/, '}').replace(/\{\}/, '');

/** The value of `series` (name with its labels, as printed, no `replica`) in `text`; undefined when absent. */
export function metricValue(text: string, series: string): number | undefined {
  const line = text.split('\n').map(withoutReplica).find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Scrapes the gateway's /metrics and reads `series` from it. */
export async function gauge(tg: TestGateway, series: string): Promise<number | undefined> {
  return metricValue((await tg.call('GET', '/metrics')).text, series);
}
