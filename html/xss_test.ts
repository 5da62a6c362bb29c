import assert from "node:assert/strict";
import { html, type SafeHtml } from "@fetchkit/toolkit/html-template";

/** Payloads from common XSS filter-evasion lists, plus attribute breakers. */
const VECTORS: string[] = [
  `<script>alert(1)</script>`,
  `"><script>alert(1)</script>`,
  `'><script>alert(1)</script>`,
  `' onmouseover='alert(1)`,
  `" onmouseover="alert(1)`,
  `x onmouseover=alert(1)`,
  `x\tonfocus=alert(1)\tautofocus`,
  `x\nonfocus=alert(1)`,
  `x\fonfocus=alert(1)`,
  `x\ronfocus=alert(1)`,
  "`onmouseover=alert(1)`",
  `x/onclick=alert(1)`,
  `x>alert(1)<`,
  `javascript:alert(1)`,
  `<img src=x onerror=alert(1)>`,
  `<svg/onload=alert(1)>`,
  `&lt;script&gt;`,
  `&#34;&#39;`,
  `<!--`,
  `--><script>alert(1)</script>`,
  `</textarea><script>alert(1)</script>`,
  `=x`,
  `"'<>&= \``,
];

/** Characters that end an unquoted attribute value or start markup. */
const UNQUOTED_BREAKERS = /[\t\n\f\r "'<>=`]/;
const MARKUP = /[<>"']/;

/**
 * Renders `template` (whose static text is `before` + hole + `after`) and
 * returns what the hole became, so the test looks only at interpolated text.
 */
function hole(result: SafeHtml, before: string, after: string): string {
  const text = result.value;
  assert.ok(text.startsWith(before) && text.endsWith(after), text);
  return text.slice(before.length, text.length - after.length);
}

Deno.test("html: no XSS vector leaves raw < > \" ' in text or quoted attributes", () => {
  for (const v of VECTORS) {
    const wrappers: unknown[] = [
      v,
      [v, [v]],
      html`${v}`,
      [html`${v}`, v],
      { toString: () => v },
      [{ toString: () => v }],
    ];
    for (const value of wrappers) {
      assert.doesNotMatch(hole(html`<p>${value}</p>`, "<p>", "</p>"), MARKUP);
      assert.doesNotMatch(
        hole(html`<a title="${value}">`, '<a title="', '">'),
        MARKUP,
      );
      assert.doesNotMatch(
        hole(html`<a title='${value}'>`, "<a title='", "'>"),
        MARKUP,
      );
    }
  }
});

Deno.test("html: no XSS vector can end an unquoted attribute value", () => {
  for (const v of VECTORS) {
    const wrappers: unknown[] = [
      v,
      [v, [v]],
      html`${v}`,
      html`x${v}`,
      [html`${v}`, v],
      { toString: () => v },
      html.raw(v),
    ];
    for (const value of wrappers) {
      // Right after `=`, after `= ` and in the middle of a value.
      for (
        const [result, before, after] of [
          [html`<a href=${value}>`, "<a href=", ">"],
          [html`<a href = ${value} id=a>`, "<a href = ", " id=a>"],
          [html`<a href=/x/${value}>`, "<a href=/x/", ">"],
          [html`<input value=${value}/>`, "<input value=", "/>"],
        ] as const
      ) {
        const inserted = hole(result, before, after);
        assert.doesNotMatch(inserted, UNQUOTED_BREAKERS, `${v} -> ${inserted}`);
      }
      // Two holes in a row in one unquoted value.
      const two = hole(html`<a href=${value}${value}>`, "<a href=", ">");
      assert.doesNotMatch(two, UNQUOTED_BREAKERS);
    }
  }
});

Deno.test("html: a reported unquoted-attribute vector adds no attribute", () => {
  const x = "' onmouseover='alert(1)";
  assert.equal(
    String(html`<a href=${x}>`),
    "<a href=&#39;&#32;onmouseover&#61;&#39;alert(1)>",
  );
});

Deno.test("html: only values inside an unquoted attribute get the strict escape", () => {
  const v = "a b=c";
  assert.equal(
    String(html`<p class="x" title=${v}>${v}</p><i title="${v}">`),
    '<p class="x" title=a&#32;b&#61;c>a b=c</p><i title="a b=c">',
  );
  // After a quoted value or a closed tag, text rules apply again.
  assert.equal(String(html`<a b="1">${v}`), '<a b="1">a b=c');
  assert.equal(String(html`<a b=1>${v}`), "<a b=1>a b=c");
  assert.equal(String(html`<a b=1 ${html.attrs({ c: true })}>`), "<a b=1 c>");
  // `=` in text or in a comment is not an attribute.
  assert.equal(String(html`1 = ${v}`), "1 = a b=c");
  assert.equal(String(html`<!-- <a b=${v} -->`), "<!-- <a b=a b=c -->");
});

Deno.test("html: escaping does not make a javascript: URL safe (documented)", () => {
  // The tag escapes markup, not URL schemes: check URLs yourself.
  assert.equal(
    String(html`<a href="${"javascript:alert(1)"}">`),
    '<a href="javascript:alert(1)">',
  );
});
