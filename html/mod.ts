/**
 * The `html` template tag: builds HTML strings where every interpolated value
 * is escaped unless it is already HTML made by `html` or `html.raw`.
 *
 * @example
 * ```ts
 * import { html } from "@fetchkit/toolkit/html-template";
 *
 * const name = "<script>";
 * const page = html`<p>Hello, ${name}</p>`;
 * String(page); // "<p>Hello, &lt;script&gt;</p>"
 * ```
 *
 * @module
 */

/**
 * A string of HTML that is safe to send as is: the result of the `html` tag
 * or of `html.raw`. Interpolating it into another `html` template does not
 * escape it again.
 *
 * @example
 * ```ts
 * import { html, SafeHtml } from "@fetchkit/toolkit/html-template";
 *
 * const item = html`<li>${"a & b"}</li>`;
 * item instanceof SafeHtml; // true
 * new Response(String(item)); // body: <li>a &amp; b</li>
 * ```
 */
export class SafeHtml {
  /** The HTML text. */
  readonly value: string;

  /**
   * Marks `value` as trusted HTML; prefer `html.raw`, which says so at the
   * call site.
   *
   * @param value HTML text that must not be escaped.
   */
  constructor(value: string) {
    this.value = value;
  }

  /**
   * The HTML text, so that `String(result)` and template literals work.
   *
   * @returns The HTML text.
   */
  toString(): string {
    return this.value;
  }
}

const NEEDS_ESCAPE = /[&<>"']/;
const ESCAPABLE = /[&<>"']/g;
const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

function entity(char: string): string {
  return ENTITIES[char];
}

/**
 * Escapes `& < > " '` so that `text` is safe in element content and in
 * quoted attribute values.
 *
 * @example
 * ```ts
 * import { escapeHtml } from "@fetchkit/toolkit/html-template";
 *
 * escapeHtml(`"Tom" & 'Jerry' <3`); // "&quot;Tom&quot; &amp; &#39;Jerry&#39; &lt;3"
 * ```
 *
 * @param text Untrusted text.
 * @returns The escaped text.
 */
export function escapeHtml(text: string): string {
  // Most values have nothing to escape; one test avoids building a new string.
  return NEEDS_ESCAPE.test(text) ? text.replace(ESCAPABLE, entity) : text;
}

function render(value: unknown): string {
  if (typeof value === "string") return escapeHtml(value);
  if (value === null || value === undefined || typeof value === "boolean") {
    // So that `${cond && html`...`}` renders nothing when `cond` is false.
    return "";
  }
  if (value instanceof SafeHtml) return value.value;
  if (typeof value === "number" || typeof value === "bigint") {
    return String(value);
  }
  if (Array.isArray(value)) {
    let out = "";
    for (let i = 0; i < value.length; i++) out += render(value[i]);
    return out;
  }
  return escapeHtml(String(value));
}

function htmlTag(
  strings: TemplateStringsArray,
  ...values: unknown[]
): SafeHtml {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) {
    out += render(values[i]) + strings[i + 1];
  }
  return new SafeHtml(out);
}

function raw(value: string): SafeHtml {
  return new SafeHtml(value);
}

/** The type of {@linkcode html}: a template tag with a `raw` helper. */
export interface HtmlTag {
  /**
   * Builds HTML from a template. Each interpolated value is rendered as:
   * a string (or any other object, through `String`) escaped; a number as
   * is; a {@linkcode SafeHtml} as is; an array as its elements rendered by
   * these same rules and joined with nothing; `null`, `undefined`, `true`
   * and `false` as nothing.
   */
  (strings: TemplateStringsArray, ...values: unknown[]): SafeHtml;
  /**
   * Marks a string as trusted HTML that must not be escaped. Never pass
   * user input to it.
   */
  raw(value: string): SafeHtml;
}

/**
 * Template tag for HTML. Interpolated values are escaped, arrays are joined,
 * `null`, `undefined`, `true` and `false` render nothing, and nested `html`
 * results (or `html.raw` ones) are inserted without escaping them twice.
 *
 * @example Lists, conditions and trusted HTML
 * ```ts
 * import { html } from "@fetchkit/toolkit/html-template";
 *
 * const items = ["<a>", "b"];
 * const error: string | undefined = undefined;
 * const page = html`
 *   ${error && html`<p class="error">${error}</p>`}
 *   <ul>${items.map((item) => html`<li>${item}</li>`)}</ul>
 *   ${html.raw("<!-- trusted -->")}
 * `;
 * String(page).includes("<li>&lt;a&gt;</li><li>b</li>"); // true
 * ```
 */
export const html: HtmlTag = Object.assign(htmlTag, { raw });
