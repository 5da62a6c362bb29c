/**
 * `SafeHtml`, `HtmlAttributes` and `escapeHtml`: what every part of the
 * `html` tag builds on.
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

  /**
   * The HTML text once every part is ready: the text itself here; a
   * {@linkcode StreamingHtml} (a template with Promises in its holes)
   * waits for its parts.
   *
   * @param _options Where errors of streamed parts are reported.
   * @returns The HTML text.
   */
  text(
    _options: { onError?: (error: unknown, name: string) => void } = {},
  ): Promise<string> {
    return Promise.resolve(this.value);
  }
}

/**
 * Attributes made by {@linkcode HtmlTag.attrs | html.attrs}: the only value
 * (besides nothing) a hole where an attribute goes accepts. Its text is
 * each attribute with a space before it (` name="value"`).
 *
 * @example
 * ```ts
 * import { html, HtmlAttributes } from "@fetchkit/toolkit/html-template";
 *
 * const attributes = html.attrs({ id: "main", hidden: true });
 * attributes instanceof HtmlAttributes; // true
 * String(html`<div ${attributes}></div>`); // '<div id="main" hidden></div>'
 * ```
 */
export class HtmlAttributes extends SafeHtml {}

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
