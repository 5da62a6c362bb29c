/**
 * The registry behind `./metrics`: counters, gauges and histograms with
 * labels, and their exposition in the Prometheus text format 0.0.4 and in
 * OpenMetrics 1.0.
 *
 * @module
 */

/**
 * Label values of one series, by label name.
 *
 * @example
 * ```ts
 * import type { Labels } from "@fetchkit/toolkit/metrics";
 *
 * const labels: Labels = { method: "password", reason: "bad_credentials" };
 * ```
 */
export type Labels = Readonly<Record<string, string | number>>;

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const NEEDS_ESCAPE = /[\\"\n]/;

/** The label value as the exposition formats write it (`\\`, `\"`, `\n`). */
export function escapeLabelValue(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return value;
  return value.replace(
    /[\\"\n]/g,
    (c) => c === "\n" ? "\\n" : "\\" + c,
  );
}

function escapeHelp(text: string, openMetrics: boolean): string {
  return text.replace(
    openMetrics ? /[\\"\n]/g : /[\\\n]/g,
    (c) => c === "\n" ? "\\n" : "\\" + c,
  );
}

/** A sample value as both formats write it. */
export function formatValue(value: number): string {
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  if (Number.isNaN(value)) return "NaN";
  return String(value);
}

/** The label values written past this many series of one metric. */
export const OVERFLOW = "(overflow)";

/**
 * Options every metric takes.
 *
 * @example
 * ```ts
 * import type { MetricOptions } from "@fetchkit/toolkit/metrics";
 *
 * const options: MetricOptions = { name: "jobs_total", help: "Jobs run.", labelNames: ["outcome"] };
 * ```
 */
export interface MetricOptions {
  /** The metric's name: `[a-zA-Z_:][a-zA-Z0-9_:]*`. */
  name: string;
  /** One line saying what it counts. */
  help: string;
  /** The names of its labels, in order. Default: none. */
  labelNames?: readonly string[];
  /**
   * Most series (label value combinations) kept; further combinations are
   * counted under one series whose labels are all `"(overflow)"`, so a
   * label fed from input cannot grow memory or a scrape without bound.
   *
   * @default {1000}
   */
  maxSeries?: number;
}

/**
 * Options of a histogram.
 *
 * @example
 * ```ts
 * import type { HistogramOptions } from "@fetchkit/toolkit/metrics";
 *
 * const options: HistogramOptions = { name: "job_seconds", help: "Job time.", buckets: [0.1, 1, 10] };
 * ```
 */
export interface HistogramOptions extends MetricOptions {
  /**
   * Upper bounds of the buckets, ascending (`+Inf` is added).
   *
   * @default {[0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]}
   */
  buckets?: readonly number[];
}

/**
 * Prometheus' default buckets, in seconds: those of
 * `http_request_duration_seconds` unless `metrics({ buckets })` says
 * otherwise.
 *
 * @example
 * ```ts
 * import { DEFAULT_BUCKETS } from "@fetchkit/toolkit/metrics";
 *
 * DEFAULT_BUCKETS.at(-1); // 10
 * ```
 */
export const DEFAULT_BUCKETS: readonly number[] = Object.freeze([
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
]);

type Kind = "counter" | "gauge" | "histogram";

/** One series' rendered labels, and its value or cells. */
interface Series<V> {
  /** `a="x",b="y"` (no braces), `""` for a metric without labels. */
  readonly labels: string;
  readonly cell: V;
}

/** A metric: named, typed, with series keyed by their label values. */
abstract class Metric<V> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly #maxSeries: number;
  readonly #series = new Map<string, Series<V>>();
  #unlabelled: V | undefined;
  #overflow: V | undefined;
  abstract readonly kind: Kind;

  constructor(options: MetricOptions, reserved: readonly string[] = []) {
    const { name, help, labelNames = [], maxSeries = 1000 } = options;
    if (typeof name !== "string" || !NAME.test(name)) {
      throw new TypeError(
        `metrics: a metric name must match [a-zA-Z_:][a-zA-Z0-9_:]*, got ${
          JSON.stringify(name)
        }`,
      );
    }
    if (typeof help !== "string") {
      throw new TypeError(`metrics: ${name} needs a help text`);
    }
    for (const label of labelNames) {
      if (
        typeof label !== "string" || !LABEL_NAME.test(label) ||
        label.startsWith("__") || reserved.includes(label)
      ) {
        throw new TypeError(
          `metrics: ${name}: label name ${
            JSON.stringify(label)
          } is not allowed (it must match [a-zA-Z_][a-zA-Z0-9_]*, not start with __${
            reserved.length > 0 ? `, nor be ${reserved.join(" or ")}` : ""
          })`,
        );
      }
    }
    if (new Set(labelNames).size !== labelNames.length) {
      throw new TypeError(`metrics: ${name}: a label name appears twice`);
    }
    if (!(Number.isInteger(maxSeries) && maxSeries >= 1)) {
      throw new TypeError(
        `metrics: ${name}: maxSeries must be a whole number >= 1, got ${maxSeries}`,
      );
    }
    this.name = name;
    this.help = help;
    this.labelNames = [...labelNames];
    this.#maxSeries = maxSeries;
  }

  protected abstract create(): V;

  /** The cell of the series with these label values. */
  protected cell(labels: Labels | undefined): V {
    const names = this.labelNames;
    if (names.length === 0) {
      if (labels !== undefined && Object.keys(labels).length > 0) {
        this.#checkNames(labels);
      }
      return this.#unlabelled ??= this.create();
    }
    let key = "";
    for (let i = 0; i < names.length; i++) {
      const value = labels?.[names[i]!];
      key += (i === 0 ? "" : "\u0000") + (value === undefined ? "" : value);
    }
    const found = this.#series.get(key);
    if (found !== undefined) return found.cell;
    return this.#add(key, labels);
  }

  /** The cell for label values given in `labelNames` order. */
  protected cellOf(values: readonly string[]): V {
    if (this.labelNames.length === 0) return this.#unlabelled ??= this.create();
    const key = values.join("\u0000");
    const found = this.#series.get(key);
    if (found !== undefined) return found.cell;
    const labels: Record<string, string> = {};
    this.labelNames.forEach((name, i) => labels[name] = values[i] ?? "");
    return this.#add(key, labels);
  }

  #checkNames(labels: Labels): void {
    for (const name of Object.keys(labels)) {
      if (!this.labelNames.includes(name)) {
        throw new TypeError(
          `metrics: ${this.name} has no label ${
            JSON.stringify(name)
          } (labels: ${this.labelNames.join(", ") || "none"})`,
        );
      }
    }
  }

  #add(key: string, labels: Labels | undefined): V {
    if (labels !== undefined) this.#checkNames(labels);
    if (this.#series.size >= this.#maxSeries) {
      return this.#overflow ??= this.create();
    }
    let text = "";
    for (let i = 0; i < this.labelNames.length; i++) {
      const name = this.labelNames[i]!;
      const value = labels?.[name];
      text += `${i === 0 ? "" : ","}${name}="${
        escapeLabelValue(value === undefined ? "" : String(value))
      }"`;
    }
    const series = { labels: text, cell: this.create() };
    this.#series.set(key, series);
    return series.cell;
  }

  /** Every series, the overflow one last. */
  *series(): Iterable<Series<V>> {
    if (this.#unlabelled !== undefined) {
      yield { labels: "", cell: this.#unlabelled };
    }
    yield* this.#series.values();
    if (this.#overflow !== undefined) {
      yield {
        labels: this.labelNames.map((name) => `${name}="${OVERFLOW}"`).join(
          ",",
        ),
        cell: this.#overflow,
      };
    }
  }

  /** Forgets every series. */
  reset(): void {
    this.#series.clear();
    this.#unlabelled = undefined;
    this.#overflow = undefined;
  }

  /** Appends the metric's lines. */
  write(out: string[], openMetrics: boolean): void {
    const family = openMetrics && this.kind === "counter" &&
        this.name.endsWith("_total")
      ? this.name.slice(0, -6)
      : this.name;
    out.push(
      `# HELP ${family} ${escapeHelp(this.help, openMetrics)}`,
      `# TYPE ${family} ${this.kind}`,
    );
    for (const series of this.series()) {
      this.writeSeries(out, family, series, openMetrics);
    }
  }

  protected abstract writeSeries(
    out: string[],
    family: string,
    series: Series<V>,
    openMetrics: boolean,
  ): void;
}

/** A value cell of a counter or gauge. */
export interface ValueCell {
  value: number;
}

function braces(labels: string): string {
  return labels === "" ? "" : `{${labels}}`;
}

/**
 * A number that only goes up (requests, errors). Its name ends in
 * `_total` by convention.
 */
export class Counter extends Metric<ValueCell> {
  readonly kind = "counter";

  protected create(): ValueCell {
    return { value: 0 };
  }

  /**
   * Adds `value` (default 1) to the series of `labels`.
   *
   * @throws {RangeError} When `value` is negative or not finite.
   */
  inc(labels?: Labels, value = 1): void {
    if (!(value >= 0 && value !== Infinity)) {
      throw new RangeError(
        `metrics: ${this.name} can only go up by a finite number >= 0, got ${value}`,
      );
    }
    this.cell(labels).value += value;
  }

  /** The series' cell, for a caller that adds to it often. */
  child(values: readonly string[]): ValueCell {
    return this.cellOf(values);
  }

  /** The value of the series of `labels` (0 when it has none yet). */
  get(labels?: Labels): number {
    return this.cell(labels).value;
  }

  protected writeSeries(
    out: string[],
    family: string,
    series: Series<ValueCell>,
    openMetrics: boolean,
  ): void {
    const name = openMetrics ? family + "_total" : this.name;
    out.push(
      `${name}${braces(series.labels)} ${formatValue(series.cell.value)}`,
    );
  }
}

/** A number that goes up and down (requests in flight, memory). */
export class Gauge extends Metric<ValueCell> {
  readonly kind = "gauge";

  protected create(): ValueCell {
    return { value: 0 };
  }

  /** Sets the series of `labels` to `value`. */
  set(labels: Labels | undefined, value: number): void {
    this.cell(labels).value = value;
  }

  /** Adds `value` (default 1). */
  inc(labels?: Labels, value = 1): void {
    this.cell(labels).value += value;
  }

  /** Takes `value` (default 1) away. */
  dec(labels?: Labels, value = 1): void {
    this.cell(labels).value -= value;
  }

  /** The series' cell, for a caller that changes it often. */
  child(values: readonly string[]): ValueCell {
    return this.cellOf(values);
  }

  /** The value of the series of `labels`. */
  get(labels?: Labels): number {
    return this.cell(labels).value;
  }

  protected writeSeries(
    out: string[],
    _family: string,
    series: Series<ValueCell>,
  ): void {
    out.push(
      `${this.name}${braces(series.labels)} ${formatValue(series.cell.value)}`,
    );
  }
}

/** The cells of one histogram series. */
export interface HistogramCell {
  /** Observations per bucket (not cumulative); the last is `+Inf`'s. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/** Observations counted in buckets (durations, sizes). */
export class Histogram extends Metric<HistogramCell> {
  readonly kind = "histogram";
  /** Upper bounds, ascending, without `+Inf`. */
  readonly buckets: readonly number[];
  readonly #bounds: Float64Array;
  readonly #labels: string[];

  constructor(options: HistogramOptions) {
    super(options, ["le"]);
    const buckets = options.buckets ?? DEFAULT_BUCKETS;
    if (
      !Array.isArray(buckets) ||
      buckets.some((b, i) =>
        typeof b !== "number" || !Number.isFinite(b) ||
        (i > 0 && !(b > buckets[i - 1]!))
      )
    ) {
      throw new TypeError(
        `metrics: ${options.name}: buckets must be finite numbers in ascending order, got ${
          JSON.stringify(buckets)
        }`,
      );
    }
    this.buckets = Object.freeze([...buckets]);
    this.#bounds = Float64Array.from(buckets);
    this.#labels = [...buckets.map(formatValue), "+Inf"];
  }

  protected create(): HistogramCell {
    return {
      counts: new Float64Array(this.#bounds.length + 1),
      sum: 0,
      count: 0,
    };
  }

  /** Counts `value` in the series of `labels`. */
  observe(labels: Labels | undefined, value: number): void {
    this.observeCell(this.cell(labels), value);
  }

  /** The series' cells, for a caller that observes often. */
  child(values: readonly string[]): HistogramCell {
    return this.cellOf(values);
  }

  /** Counts `value` in `cell`. */
  observeCell(cell: HistogramCell, value: number): void {
    const bounds = this.#bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    cell.counts[i]!++;
    cell.sum += value;
    cell.count++;
  }

  /** The series of `labels`: cumulative counts per bucket, sum and count. */
  get(labels?: Labels): { buckets: number[]; sum: number; count: number } {
    const cell = this.cell(labels);
    let total = 0;
    return {
      buckets: Array.from(cell.counts, (n) => total += n),
      sum: cell.sum,
      count: cell.count,
    };
  }

  protected writeSeries(
    out: string[],
    _family: string,
    series: Series<HistogramCell>,
  ): void {
    const { labels, cell } = series;
    const prefix = labels === "" ? "" : labels + ",";
    let total = 0;
    for (let i = 0; i < this.#labels.length; i++) {
      total += cell.counts[i]!;
      out.push(
        `${this.name}_bucket{${prefix}le="${this.#labels[i]}"} ${total}`,
      );
    }
    out.push(
      `${this.name}_sum${braces(labels)} ${formatValue(cell.sum)}`,
      `${this.name}_count${braces(labels)} ${cell.count}`,
    );
  }
}

/** Any metric of a registry. */
export type AnyMetric = Counter | Gauge | Histogram;

/**
 * The content type of the Prometheus text format 0.0.4.
 *
 * @example
 * ```ts
 * import { TEXT_CONTENT_TYPE } from "@fetchkit/toolkit/metrics";
 *
 * TEXT_CONTENT_TYPE; // "text/plain; version=0.0.4; charset=utf-8"
 * ```
 */
export const TEXT_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
/**
 * The content type of OpenMetrics 1.0.
 *
 * @example
 * ```ts
 * import { OPENMETRICS_CONTENT_TYPE } from "@fetchkit/toolkit/metrics";
 *
 * OPENMETRICS_CONTENT_TYPE; // "application/openmetrics-text; version=1.0.0; charset=utf-8"
 * ```
 */
export const OPENMETRICS_CONTENT_TYPE =
  "application/openmetrics-text; version=1.0.0; charset=utf-8";

/**
 * Metrics by name, and work to run before each exposition (process
 * numbers read then).
 */
export class Registry {
  readonly #metrics = new Map<string, AnyMetric>();
  readonly #collectors = new Set<() => void>();
  /** Stops background work (the event-loop delay sampler). */
  readonly #closers = new Set<() => void>();
  /** Shared state of modules built on this registry, by key. */
  readonly parts = new Map<string, unknown>();

  /** Registers a counter; the same name and type again returns the first. */
  counter(options: MetricOptions): Counter {
    return this.#register(options, "counter", () => new Counter(options));
  }

  /** Registers a gauge; the same name and type again returns the first. */
  gauge(options: MetricOptions): Gauge {
    return this.#register(options, "gauge", () => new Gauge(options));
  }

  /** Registers a histogram; the same name and type again returns the first. */
  histogram(options: HistogramOptions): Histogram {
    return this.#register(options, "histogram", () => new Histogram(options));
  }

  #register<M extends AnyMetric>(
    options: MetricOptions,
    kind: Kind,
    make: () => M,
  ): M {
    const found = this.#metrics.get(options?.name);
    if (found !== undefined) {
      const labels = options.labelNames ?? [];
      if (
        found.kind !== kind ||
        found.labelNames.join(",") !== labels.join(",")
      ) {
        throw new TypeError(
          `metrics: ${options.name} is already registered as a ${found.kind} with labels [${
            found.labelNames.join(", ")
          }]`,
        );
      }
      return found as M;
    }
    const metric = make();
    this.#metrics.set(metric.name, metric);
    return metric;
  }

  /** The metric of that name, if registered. */
  get(name: string): AnyMetric | undefined {
    return this.#metrics.get(name);
  }

  /** Runs `collect` before every exposition. */
  onCollect(collect: () => void): void {
    this.#collectors.add(collect);
  }

  /** Runs `close` when the registry is closed. */
  onClose(close: () => void): void {
    this.#closers.add(close);
  }

  /** Stops background work started for this registry. */
  close(): void {
    for (const close of this.#closers) close();
    this.#closers.clear();
  }

  /** Every metric in exposition format. */
  expose(openMetrics = false): string {
    for (const collect of this.#collectors) collect();
    const out: string[] = [];
    for (const metric of this.#metrics.values()) {
      metric.write(out, openMetrics);
    }
    if (openMetrics) out.push("# EOF");
    return out.join("\n") + "\n";
  }
}
