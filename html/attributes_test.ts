// Holes where an attribute or a name goes: no value can add an attribute.
// Portable (Deno, Node, Bun).
import assert from "node:assert/strict";
import { html, HtmlAttributes } from "@fetchkit/toolkit/html-template";

const VECTORS = [
  "x onmouseover=alert(1)",
  "onmouseover=alert(1)",
  "x\tonfocus=alert(1)\tautofocus",
  "x/onclick=alert(1)",
  `" onclick="alert(1)`,
  `' onclick='alert(1)`,
  "><script>alert(1)</script>",
  "a=",
  "a b",
];

Deno.test("html: a string where an attribute goes throws instead of adding attributes", () => {
  const v = "x onmouseover=alert(1)";
  assert.throws(
    () => html`<div ${v}>`,
    {
      name: "TypeError",
      message:
        'html: hole 1 stands where an attribute goes (<div ${attributes}>), so text there could add attributes (such as onmouseover); give html.attrs({ name: value }), one bare attribute name ("selected") or nothing (null, undefined, false); got string "x onmouseover=alert(1)"',
    },
  );
});

Deno.test("html: every vector, however wrapped, is refused where an attribute goes", () => {
  for (const v of VECTORS) {
    for (
      const value of [
        v,
        html`${v}`,
        html.raw(v),
        { toString: () => v },
        [v],
        1,
      ]
    ) {
      assert.throws(() => html`<div ${value}>`, TypeError, JSON.stringify(v));
      assert.throws(() => html`<div class="a" ${value}>`, TypeError);
      assert.throws(() =>
        html`
          <div class="a" ${value}>
        `, TypeError);
      assert.throws(() =>
        html`
          <input \\n ${value}\\n />
        `, TypeError);
    }
  }
});

Deno.test("html: nothing (null, undefined, true, false) renders nothing where an attribute goes", () => {
  for (const value of [null, undefined, true, false, ""]) {
    assert.equal(String(html`<div ${value}>`), "<div >");
  }
});

Deno.test("html: one bare attribute name may stand where an attribute goes", () => {
  for (const selected of [true, false]) {
    assert.equal(
      String(html`<option ${selected ? "selected" : ""}>a</option>`),
      selected ? "<option selected>a</option>" : "<option >a</option>",
    );
  }
  assert.equal(String(html`<div ${"data-x"}>`), "<div data-x>");
});

Deno.test("html: a hole continuing a tag or attribute name takes name characters only", () => {
  assert.equal(String(html`<h${2}>x</h${2}>`), "<h2>x</h2>");
  assert.equal(
    String(html`<div data-${"user-id"}="7">`),
    '<div data-user-id="7">',
  );
  assert.equal(String(html`<${"section"}>`), "<section>");
  for (const v of VECTORS) {
    assert.throws(() => html`<h${v}>`, TypeError, JSON.stringify(v));
    assert.throws(() => html`<div data-${v}="1">`, TypeError);
    assert.throws(() => html`<${v}>`, TypeError);
    assert.throws(() => html`<p>1 <${v}</p>`, TypeError);
  }
  assert.throws(
    () => html`<h${"1 onclick=alert(1)"}>`,
    /continues a tag or attribute name .* got "1 onclick=alert\(1\)"/,
  );
});

Deno.test("html.attrs: values are quoted and escaped, so each gives one attribute", () => {
  for (const v of VECTORS) {
    for (const value of [v, html`${v}`, [v, v]]) {
      const out = String(html`<div ${html.attrs({ title: value })}>`);
      // One attribute: its value holds no quote that could end it.
      assert.match(out, /^<div title="[^"<>]*">$/, out);
    }
  }
  assert.equal(
    String(html`<div ${html.attrs({ title: html.raw('a"b') })}>`),
    '<div title="a&quot;b">',
  );
});

Deno.test("html.attrs: true gives the bare name, false/null/undefined leave it out, lists are joined", () => {
  const attributes = html.attrs({
    required: true,
    hidden: false,
    title: null,
    alt: undefined,
    class: ["btn", "primary"],
    tabindex: 0,
  });
  assert.ok(attributes instanceof HtmlAttributes);
  assert.equal(
    String(attributes),
    ' required class="btn primary" tabindex="0"',
  );
  assert.equal(
    String(html`<button ${attributes}>`),
    '<button required class="btn primary" tabindex="0">',
  );
  // Glued to a name, after a quoted value, or a list of them.
  assert.equal(
    String(html`<input required${html.attrs({ id: "a" })}>`),
    '<input required id="a">',
  );
  const list = [html.attrs({ id: "a" }), html.attrs({ rel: "x" })];
  // deno-fmt-ignore
  const linked = String(html`<a href="/"${list}>`);
  assert.equal(linked, '<a href="/" id="a" rel="x">');
});

Deno.test("html.attrs: a name that could break the tag throws", () => {
  for (const name of ["", "a b", 'a"', "a'", "a=b", "a>", "a/", "a<", "a\0"]) {
    assert.throws(
      () => html.attrs({ [name]: "1" }),
      { name: "TypeError", message: /is not an attribute name/ },
      JSON.stringify(name),
    );
  }
});

Deno.test("html: holes in <script> and <style> are escaped as text (inert, not decoded there)", () => {
  const v = `</script><script>alert(1)</script>`;
  const out = String(html`<script>const x = "${v}";</script>`);
  assert.equal(out.indexOf("</script"), out.length - "</script>".length);
  assert.ok(out.includes("&lt;/script&gt;"));
  const style = String(
    html`<style>a { content: "${"</style><script>"}" }</style>`,
  );
  assert.equal(style.indexOf("</style"), style.length - "</style>".length);
});
