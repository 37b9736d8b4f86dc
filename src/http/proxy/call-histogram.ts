/**
 * The histogram of proxied calls (`threadgate_proxy_request_seconds`) with
 * pre-bound label sets: each set of labels (client, method, template,
 * status) gets its series once, on its first call; every later call finds it
 * by lookups of strings it already holds and adds to its counters — no label object hashed,
 * sorted or validated per call as prom-client's Histogram does. prom-client's
 * Registry reads it at scrape time like its own histograms (same text:
 * `_bucket{le=…}` cumulative, `+Inf`, `_sum`, `_count`; the registry's
 * default labels added).
 */
import type { Metric, Registry } from 'prom-client';

export interface ProxyCall {
  client: string;
  method: string;
  template: string;
  status: number;
  seconds: number;
}

type Labels = Record<'client' | 'method' | 'template' | 'status', string>;

interface MetricData<V> {
  name: string;
  help: string;
  type: string;
  aggregator: string;
  values: V[];
}

class Series {
  readonly labels: Labels;
  /** Per bucket, not cumulative; the last counts what is above every bound. */
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(labels: Labels, buckets: number) {
    this.labels = labels;
    this.counts = new Array<number>(buckets + 1).fill(0);
  }
}

export class ProxyCallHistogram {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #bounds: readonly number[];
  /** Template → method → client → status → series; and every series, in the order first seen. */
  readonly #bound = new Map<string, Map<string, Map<string, Map<number, Series>>>>();
  readonly #series: Series[] = [];

  constructor(options: { name: string; help: string; buckets: readonly number[]; registers: Registry[] }) {
    this.name = options.name;
    this.help = options.help;
    this.#bounds = [...options.buckets].sort((a, b) => a - b);
    // The registry takes any object with name, type, get() and reset(); its type names only its own classes.
    for (const registry of options.registers) registry.registerMetric(this as unknown as Metric);
  }

  observe(call: ProxyCall): void {
    const series = this.#seriesOf(call);
    const bounds = this.#bounds;
    let i = 0;
    while (i < bounds.length && call.seconds > bounds[i]!) i++;
    series.counts[i]! += 1;
    series.sum += call.seconds;
    series.count += 1;
  }

  /** The series of the call's labels: found by its template, method, client and status in turn (strings the proxy holds already, so no key is built). */
  #seriesOf(call: ProxyCall): Series {
    let byMethod = this.#bound.get(call.template);
    if (byMethod === undefined) this.#bound.set(call.template, (byMethod = new Map()));
    let byClient = byMethod.get(call.method);
    if (byClient === undefined) byMethod.set(call.method, (byClient = new Map()));
    let byStatus = byClient.get(call.client);
    if (byStatus === undefined) byClient.set(call.client, (byStatus = new Map()));
    let series = byStatus.get(call.status);
    if (series === undefined) {
      series = new Series({ client: call.client, method: call.method, template: call.template, status: String(call.status) }, this.#bounds.length);
      byStatus.set(call.status, series);
      this.#series.push(series);
    }
    return series;
  }

  /** What prom-client's Registry prints, shaped as its Histogram shapes it (the series' labels shared, `le` its own). */
  getForPromString(): Promise<MetricData<{ labels: Record<string, string | number>; sharedLabels: Labels; value: number; metricName: string }>> {
    const values: { labels: Record<string, string | number>; sharedLabels: Labels; value: number; metricName: string }[] = [];
    const bucket = `${this.name}_bucket`;
    for (const s of this.#series) {
      let cumulative = 0;
      this.#bounds.forEach((le, i) => {
        cumulative += s.counts[i]!;
        values.push({ labels: { le }, sharedLabels: s.labels, value: cumulative, metricName: bucket });
      });
      values.push({ labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: bucket });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  /** The same values with every label in `labels` (the registry's JSON). */
  async get(): Promise<MetricData<{ labels: Record<string, string | number>; value: number; metricName: string }>> {
    const data = await this.getForPromString();
    return { ...data, values: data.values.map(({ labels, sharedLabels, ...rest }) => ({ ...rest, labels: { ...labels, ...sharedLabels } })) };
  }

  reset(): void {
    this.#bound.clear();
    this.#series.length = 0;
  }
}
