/** Reading one series of the gateway's /metrics (Prometheus text). */
import type { TestGateway } from './gateway.ts';

/** The value of `series` (name with its labels, as printed) in `text`; undefined when absent. */
export function metricValue(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Scrapes the gateway's /metrics and reads `series` from it. */
export async function gauge(tg: TestGateway, series: string): Promise<number | undefined> {
  return metricValue((await tg.call('GET', '/metrics')).text, series);
}
