import assert from "node:assert/strict";
import { escapeHtml, html, SafeHtml } from "@fetchkit/toolkit/html-template";

Deno.test("html escapes & < > \" ' in an interpolated string", () => {
  const result = html`<p title="${`"'`}">${"<b>Tom & Jerry</b>"}</p>`;
  assert.equal(
    String(result),
    `<p title="&quot;&#39;">&lt;b&gt;Tom &amp; Jerry&lt;/b&gt;</p>`,
  );
});

Deno.test("html leaves the template's own text unescaped", () => {
  assert.equal(
    String(html`<a href="/x?a=1&b=2">'</a>`),
    `<a href="/x?a=1&b=2">'</a>`,
  );
});

Deno.test("html renders null, undefined, true and false as nothing", () => {
  assert.equal(
    String(html`[${null}|${undefined}|${true}|${false}]`),
    "[|||]",
  );
});

Deno.test("html renders numbers, bigints and zero", () => {
  assert.equal(String(html`${0} ${-1.5} ${10n}`), "0 -1.5 10");
});

Deno.test("html joins arrays with nothing and escapes string elements", () => {
  assert.equal(String(html`<i>${["<a>", "b", 1]}</i>`), "<i>&lt;a&gt;b1</i>");
});

Deno.test("html keeps html results inside arrays unescaped", () => {
  const items = ["x<y", "z"].map((item) => html`<li>${item}</li>`);
  assert.equal(
    String(html`<ul>${items}</ul>`),
    "<ul><li>x&lt;y</li><li>z</li></ul>",
  );
});

Deno.test("html flattens nested arrays and skips null/boolean elements", () => {
  assert.equal(
    String(html`${["a", [null, "<", [false, html`<br>`]], undefined]}`),
    "a&lt;<br>",
  );
});

Deno.test("html does not escape a nested html result twice", () => {
  const inner = html`<b>${"&"}</b>`;
  assert.equal(String(html`<p>${inner}</p>`), "<p><b>&amp;</b></p>");
});

Deno.test("html.raw marks trusted HTML that is inserted as is", () => {
  const trusted = html.raw("<script>ok()</script>");
  assert.ok(trusted instanceof SafeHtml);
  assert.equal(
    String(html`<div>${trusted}</div>`),
    "<div><script>ok()</script></div>",
  );
});

Deno.test("html escapes other objects through String()", () => {
  const value = { toString: () => "<obj>" };
  assert.equal(String(html`${value}`), "&lt;obj&gt;");
});

Deno.test("html returns a SafeHtml usable as a Response body", async () => {
  const result = html`<h1>${"Hi & bye"}</h1>`;
  assert.ok(result instanceof SafeHtml);
  assert.equal(result.value, "<h1>Hi &amp; bye</h1>");
  assert.equal(`${result}`, "<h1>Hi &amp; bye</h1>");
  assert.equal(
    await new Response(String(result)).text(),
    "<h1>Hi &amp; bye</h1>",
  );
});

Deno.test("escapeHtml returns text without special characters unchanged", () => {
  assert.equal(escapeHtml("plain text"), "plain text");
  assert.equal(escapeHtml(""), "");
  assert.equal(escapeHtml("&&"), "&amp;&amp;");
  assert.equal(escapeHtml("&amp;"), "&amp;amp;");
});
