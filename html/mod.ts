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
 * Where a value lands decides how it is escaped. In text and in quoted
 * attribute values, `& < > " '` become entities. In an unquoted attribute
 * value (``html`<a href=${x}>` ``, also `href=/x/${x}`), whitespace, `=`,
 * `` ` ``, `<`, `>` and quotes become entities as well, even inside nested
 * `html` or `html.raw` values, so no interpolated value can end the value and
 * add an attribute. The tag finds these places once per template from its
 * static text. Quote your attributes anyway; it reads better.
 *
 * A hole where an attribute goes (``html`<div ${x}>` ``) takes only
 * {@linkcode HtmlTag.attrs | html.attrs}`({ name: value })`, one bare
 * attribute name made of letters, digits, `-`, `_`, `.` and `:`
 * (`${checked ? "checked" : ""}`), or `null`, `undefined`, `true` or `false`
 * (nothing). Any other value there, an `html` result included, throws a
 * `TypeError`, since it could add attributes (`x onmouseover=alert(1)`). A
 * hole that continues a tag or
 * attribute name (``html`<h${level}>` ``, `` `data-${key}="1"` ``) takes a
 * number, or a string of letters, digits, `-`, `_`, `.` and `:` only; any
 * other string throws. So no interpolated value can add an attribute.
 *
 * Inside `<script>` and `<style>` a hole is escaped as text, like anywhere:
 * the value cannot end the element (`<` becomes `&lt;`), but the browser
 * does not decode entities there, so the script sees `&quot;` and `&lt;`
 * literally, not the value. Do not interpolate data into scripts or styles:
 * put it in an attribute (`<div data-user="${name}">`, read with
 * `element.dataset.user`) or fetch it as JSON.
 *
 * Escaping makes text inert as markup; it cannot make a URL safe. A
 * `javascript:` (or `data:`) URL interpolated into `href` or `src` still runs
 * when clicked: check the scheme of user-supplied URLs yourself (allow only
 * `http:`, `https:` or a local path) before putting them in a link.
 *
 * @module
 */

import { escapeHtml, HtmlAttributes, SafeHtml } from "./_safe.ts";
import {
  collectParts,
  type DeferOptions,
  DeferredHtml,
  type HtmlPart,
  isPending,
  PendingHtmlError,
  pushPart,
  StreamingHtml,
} from "./_streaming.ts";

export { escapeHtml, HtmlAttributes, SafeHtml } from "./_safe.ts";
export {
  type DeferOptions,
  DeferredHtml,
  type HtmlStreamOptions,
  StreamingHtml,
} from "./_streaming.ts";

/** What an attribute may be given in {@linkcode HtmlTag.attrs | html.attrs}. */
export type AttributeValue =
  | string
  | number
  | bigint
  | boolean
  | null
  | undefined
  | SafeHtml
  | readonly (string | number)[];

const HOLE_PLACES = [
  "",
  "an unquoted attribute value",
  "a tag or attribute name",
  "the place of an attribute",
];

/** The tag's result for a template with holes to wait for. */
function streamingTemplate(
  strings: TemplateStringsArray,
  values: unknown[],
  marks: number[] | null,
): StreamingHtml {
  const states: number[] = [];
  scanHoles(strings, states);
  const parts: HtmlPart[] = [];
  pushPart(parts, strings[0]);
  for (let i = 0; i < values.length; i++) {
    const kind = marks === null ? 0 : marks[i];
    const value = values[i];
    if (kind === 0) {
      const quoted = states[i] === State.DoubleQuoted ||
        states[i] === State.SingleQuoted;
      collectParts(value, parts, quoted);
    } else {
      if (isPending(value) || value instanceof StreamingHtml) {
        throw new TypeError(
          `html: hole ${i + 1} is ${
            HOLE_PLACES[kind]
          }, where a value that is not ready (a Promise, an async iterable, html.defer()) cannot go; it can go in text or a quoted attribute value`,
        );
      }
      pushPart(
        parts,
        kind === UNQUOTED
          ? renderUnquoted(value)
          : kind === NAME
          ? renderName(value, i + 1)
          : renderAttributes(
            value,
            i + 1,
            isSpaceCode(strings[i].charCodeAt(strings[i].length - 1)),
          ),
      );
    }
    pushPart(parts, strings[i + 1]);
  }
  return new StreamingHtml(parts);
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
    for (let i = 0; i < value.length; i++) {
      // Lists are mostly of nested `html` results: take those directly.
      const item = value[i];
      out += item instanceof SafeHtml ? item.value : render(item);
    }
    return out;
  }
  // A Promise, an async iterable or html.defer(): the template streams.
  if (isPending(value)) throw new PendingHtmlError();
  return escapeHtml(String(value));
}

// In an unquoted attribute value (`<a href=${x}>`) whitespace, `>` and a
// quote end the value and start a new attribute, so there every character
// that could do so is an entity too, even inside nested or raw HTML (whose
// entities stay valid, so `&` is left alone there).
const UNQUOTED_BREAKERS = /[\t\n\f\r "'<>=`]/g;
const UNQUOTED_ENTITIES: Record<string, string> = {
  "\t": "&#9;",
  "\n": "&#10;",
  "\f": "&#12;",
  "\r": "&#13;",
  " ": "&#32;",
  '"': "&quot;",
  "'": "&#39;",
  "<": "&lt;",
  ">": "&gt;",
  "=": "&#61;",
  "`": "&#96;",
};

function unquotedEntity(char: string): string {
  return UNQUOTED_ENTITIES[char];
}

function renderUnquoted(value: unknown): string {
  return render(value).replace(UNQUOTED_BREAKERS, unquotedEntity);
}

// Where a hole sits, when not in text or a quoted value.
const UNQUOTED = 1; // an unquoted attribute value: `<a href=${x}>`
const NAME = 2; // continuing a tag or attribute name: `<h${n}>`, `data-${k}=`
const ATTRIBUTE = 3; // where an attribute goes: `<div ${x}>`

/**
 * For each hole of a template, where it sits (0 for text and quoted
 * values, else one of the constants above); `null` when every hole is
 * in text or a quoted value (the common case). Computed once per call
 * site: a tagged template's strings array is the same object each time.
 */
const holeKinds = new WeakMap<TemplateStringsArray, number[] | null>();
// The last template seen: a list renders one row template many times over,
// and comparing one reference is cheaper than a WeakMap lookup.
let lastStrings: TemplateStringsArray | undefined;
let lastMarks: number[] | null = null;

// Tokenizer states (plain numbers: a `const enum` does not survive
// isolated-module transpilation everywhere).
const State = {
  Data: 0,
  TagOpen: 1,
  Tag: 2,
  AttrName: 3,
  AfterAttrName: 4,
  BeforeValue: 5,
  Unquoted: 6,
  DoubleQuoted: 7,
  SingleQuoted: 8,
  Comment: 9,
} as const;

function isSpace(char: string): boolean {
  return char === " " || char === "\n" || char === "\t" || char === "\f" ||
    char === "\r";
}

/**
 * A small HTML tokenizer over the static text, just precise enough to know
 * where a hole lands: in text, in a quoted value, or in an unquoted value.
 */
function scanHoles(
  strings: TemplateStringsArray,
  states?: number[],
): number[] | null {
  let state: number = State.Data;
  let marks: number[] | null = null;
  for (let part = 0; part < strings.length; part++) {
    if (part > 0) {
      // A hole right after `=` starts an unquoted value.
      if (state === State.BeforeValue) state = State.Unquoted;
      if (states !== undefined) states.push(state);
      const kind = state === State.Unquoted
        ? UNQUOTED
        : state === State.TagOpen || state === State.Tag ||
            state === State.AttrName
        ? NAME
        : state === State.AfterAttrName
        ? ATTRIBUTE
        : 0;
      if (kind !== 0) {
        marks ??= new Array(strings.length - 1).fill(0);
        marks[part - 1] = kind;
      }
      // `<${tag}`: the name goes on after the hole.
      if (state === State.TagOpen) state = State.Tag;
    }
    const text = strings[part];
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      switch (state) {
        case State.Data:
          if (c === "<") {
            if (text.startsWith("!--", i + 1)) {
              state = State.Comment;
              i += 3;
            } else state = State.TagOpen;
          }
          break;
        case State.TagOpen:
          state = /[a-zA-Z\/!?]/.test(c) ? State.Tag : State.Data;
          break;
        case State.Tag:
          if (c === ">") state = State.Data;
          else if (isSpace(c) || c === "/") state = State.AfterAttrName;
          break;
        case State.AttrName:
          if (c === "=") state = State.BeforeValue;
          else if (c === ">") state = State.Data;
          else if (isSpace(c) || c === "/") state = State.AfterAttrName;
          break;
        case State.AfterAttrName:
          if (c === "=") state = State.BeforeValue;
          else if (c === ">") state = State.Data;
          else if (!isSpace(c) && c !== "/") state = State.AttrName;
          break;
        case State.BeforeValue:
          if (c === '"') state = State.DoubleQuoted;
          else if (c === "'") state = State.SingleQuoted;
          else if (c === ">") state = State.Data;
          else if (!isSpace(c)) state = State.Unquoted;
          break;
        case State.Unquoted:
          if (c === ">") state = State.Data;
          else if (isSpace(c)) state = State.AfterAttrName;
          break;
        case State.DoubleQuoted:
          if (c === '"') state = State.AfterAttrName;
          break;
        case State.SingleQuoted:
          if (c === "'") state = State.AfterAttrName;
          break;
        case State.Comment:
          if (c === ">" && text.startsWith("--", i - 2)) state = State.Data;
          break;
      }
    }
  }
  return marks;
}

const NAME_CHARS = /^[A-Za-z0-9_.:-]*$/;

function preview(value: unknown): string {
  const text = typeof value === "string"
    ? value
    : value instanceof SafeHtml
    ? value.value
    : String(value);
  return JSON.stringify(text.length > 40 ? text.slice(0, 40) + "…" : text);
}

/** A value in a hole that continues a tag or attribute name. */
function renderName(value: unknown, hole: number): string {
  if (value === null || value === undefined || typeof value === "boolean") {
    return "";
  }
  if (value instanceof HtmlAttributes) return value.value;
  if (typeof value === "number" || typeof value === "bigint") {
    return String(value);
  }
  if (typeof value === "string" && NAME_CHARS.test(value)) return value;
  throw new TypeError(
    `html: hole ${hole} continues a tag or attribute name (<h\${n}>, data-\${key}=), where only letters, digits, "-", "_", "." and ":" may go; got ${
      preview(value)
    }. For attributes, use html.attrs({ name: value }).`,
  );
}

/** A value in a hole where an attribute goes: `html.attrs()` or nothing. */
function renderAttributes(
  value: unknown,
  hole: number,
  afterSpace: boolean,
): string {
  if (value === null || value === undefined || typeof value === "boolean") {
    return "";
  }
  if (value instanceof HtmlAttributes) {
    // Its text starts with a space; the template has one already.
    return afterSpace ? value.value.slice(1) : value.value;
  }
  // One bare attribute name (`${checked ? "checked" : ""}`) cannot add
  // another attribute or a value.
  if (typeof value === "string" && NAME_CHARS.test(value)) return value;
  if (Array.isArray(value)) {
    let out = "";
    for (const item of value) out += renderAttributes(item, hole, false);
    return afterSpace ? out.slice(1) : out;
  }
  throw new TypeError(
    `html: hole ${hole} stands where an attribute goes (<div \${attributes}>), so text there could add attributes (such as onmouseover); give html.attrs({ name: value }), one bare attribute name ("selected") or nothing (null, undefined, false); got ${
      value instanceof SafeHtml ? "html " : typeof value + " "
    }${preview(value)}`,
  );
}

function isSpaceCode(code: number): boolean {
  return code === 32 || code === 10 || code === 9 || code === 12 ||
    code === 13;
}

function htmlTag(
  strings: TemplateStringsArray,
  ...values: unknown[]
): SafeHtml {
  let marks: number[] | null | undefined;
  if (strings === lastStrings) {
    marks = lastMarks;
  } else {
    marks = holeKinds.get(strings);
    if (marks === undefined) {
      marks = scanHoles(strings);
      holeKinds.set(strings, marks);
    }
    lastStrings = strings;
    lastMarks = marks;
  }
  let out = strings[0];
  try {
    if (marks === null) {
      for (let i = 0; i < values.length; i++) {
        const value = values[i];
        // Strings and nested `html` are most values: skip the call for them.
        out += (typeof value === "string"
          ? escapeHtml(value)
          : value instanceof SafeHtml
          ? value.value
          : render(value)) + strings[i + 1];
      }
    } else {
      for (let i = 0; i < values.length; i++) {
        const kind = marks[i];
        out += (kind === 0
          ? render(values[i])
          : kind === UNQUOTED
          ? renderUnquoted(values[i])
          : kind === NAME
          ? renderName(values[i], i + 1)
          : renderAttributes(
            values[i],
            i + 1,
            isSpaceCode(strings[i].charCodeAt(strings[i].length - 1)),
          )) + strings[i + 1];
      }
    }
  } catch (error) {
    // A hole held a Promise, an async iterable, html.defer() or a nested
    // streaming template: build the parts to stream instead.
    if (error instanceof PendingHtmlError) {
      return streamingTemplate(strings, values, marks);
    }
    throw error;
  }
  return new SafeHtml(out);
}

function raw(value: string): SafeHtml {
  return new SafeHtml(value);
}

function defer(
  promise: PromiseLike<unknown>,
  fallback: SafeHtml | string = "",
  options: DeferOptions = {},
): DeferredHtml {
  if (
    promise === null ||
    typeof promise !== "object" && typeof promise !== "function" ||
    typeof promise.then !== "function"
  ) {
    throw new TypeError(
      "html.defer(promise, fallback): promise must be a Promise",
    );
  }
  if (fallback instanceof StreamingHtml) {
    throw new TypeError(
      "html.defer(promise, fallback): the fallback is sent at once, so it cannot hold parts that are not ready",
    );
  }
  const shown = fallback instanceof SafeHtml
    ? fallback
    : new SafeHtml(escapeHtml(String(fallback)));
  return new DeferredHtml(promise, shown, options);
}

// Characters that end or break an attribute name (HTML's tokenizer).
// deno-lint-ignore no-control-regex -- refusing control characters is the point
const BAD_ATTRIBUTE_NAME = /[\s"'<>\/=\x00-\x1f\x7f]/;
const ATTRIBUTE_VALUE_QUOTE = /"/g;

function attributeValue(value: AttributeValue): string {
  if (typeof value === "string") return escapeHtml(value);
  if (value instanceof SafeHtml) {
    // Trusted HTML keeps its entities; a quote would end the value.
    return value.value.replace(ATTRIBUTE_VALUE_QUOTE, "&quot;");
  }
  if (Array.isArray(value)) return escapeHtml(value.join(" "));
  return escapeHtml(String(value));
}

function attrs(attributes: Record<string, AttributeValue>): HtmlAttributes {
  if (typeof attributes !== "object" || attributes === null) {
    throw new TypeError(
      "html.attrs(): give an object of attribute names to values",
    );
  }
  let out = "";
  for (const name of Object.keys(attributes)) {
    if (name === "" || BAD_ATTRIBUTE_NAME.test(name)) {
      throw new TypeError(
        `html.attrs(): ${
          JSON.stringify(name)
        } is not an attribute name (no spaces, quotes, "<", ">", "/", "=" or control characters)`,
      );
    }
    const value = attributes[name];
    if (value === false || value === null || value === undefined) continue;
    out += value === true ? " " + name : ` ${name}="${attributeValue(value)}"`;
  }
  return new HtmlAttributes(out);
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
  /**
   * Attributes for a hole where an attribute goes (``html`<input ${...}>` ``),
   * the one place a string may not go. Values are escaped and quoted; `true`
   * gives the bare name (`required`); `false`, `null` and `undefined` leave
   * the attribute out; a list is joined with spaces (`class`). A name with
   * a space, quote, `<`, `>`, `/`, `=` or control character throws a
   * `TypeError`.
   */
  attrs(attributes: Record<string, AttributeValue>): HtmlAttributes;
  /**
   * A part sent after the rest of the page: `fallback` goes in its place
   * at once; once `promise` resolves, its value (rendered by the tag's
   * rules) is sent at the end of the document, before `</body>`, in a
   * `<div>` with a small inline script that moves it into the fallback's
   * place. Without JavaScript the content still arrives, at the end of
   * the page. When `promise` rejects, the error is logged and a
   * placeholder naming the part (`options.name`) takes its place.
   */
  defer(
    promise: PromiseLike<unknown>,
    fallback?: SafeHtml | string,
    options?: DeferOptions,
  ): DeferredHtml;
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
 *
 * @example Attributes: html.attrs() where an attribute goes
 * ```ts
 * import { html } from "@fetchkit/toolkit/html-template";
 *
 * const invalid = true;
 * const input = html`<input name="email" required ${
 *   invalid && html.attrs({ "aria-invalid": "true", "aria-describedby": "email-error" })
 * }>`;
 * String(input);
 * // '<input name="email" required aria-invalid="true" aria-describedby="email-error">'
 * ```
 */
export const html: HtmlTag = Object.assign(htmlTag, { raw, attrs, defer });
