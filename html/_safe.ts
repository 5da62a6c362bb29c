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

// Callback-free: `String.replace` with a callback called it once per special
// character, 2-3 times the cost of this on a text full of them
// (bench/page/escape.ts). The regex engine's native scan finds the
// first special character; from there a char-code loop copies the runs
// between specials with one slice each, and after 16 plain characters in a
// row hands the search back to the native scan, so that a long text with few
// specials is not walked character by character in JavaScript.
const SPECIAL = /[&<>"']/g;
/** Plain characters in a row after which the native scan takes over. */
const PLAIN_RUN = 16;

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
  // Most values have nothing to escape: one scan, and the same string back.
  SPECIAL.lastIndex = 0;
  if (!SPECIAL.test(text)) return text;
  let i = SPECIAL.lastIndex - 1;
  let out = text.slice(0, i);
  let from = i;
  for (; i < text.length; i++) {
    let entity: string;
    switch (text.charCodeAt(i)) {
      case 38: // &
        entity = "&amp;";
        break;
      case 60: // <
        entity = "&lt;";
        break;
      case 62: // >
        entity = "&gt;";
        break;
      case 34: // "
        entity = "&quot;";
        break;
      case 39: // '
        entity = "&#39;";
        break;
      default:
        if (i - from < PLAIN_RUN) continue;
        SPECIAL.lastIndex = i;
        if (!SPECIAL.test(text)) return out + text.slice(from);
        // The loop's i++ lands on the special character found.
        i = SPECIAL.lastIndex - 2;
        continue;
    }
    if (from !== i) out += text.slice(from, i);
    out += entity;
    from = i + 1;
  }
  return from === text.length ? out : out + text.slice(from);
}
