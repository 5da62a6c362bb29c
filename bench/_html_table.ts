/**
 * The HTML table of the `html` benchmarks and of the HTTP scenario: rows of
 * user-ish data rendered with our `html` tag, Hono's `html` helper, and
 * plain string concatenation with the same escaping (the floor).
 *
 * @module
 */
import { escapeHtml, html } from "@fetchkit/toolkit/html-template";
import { html as honoHtml } from "hono/html";

/** One row of the table. */
export interface Row {
  id: number;
  name: string;
  email: string;
  role: string;
}

/** `count` rows; every tenth name needs escaping, like real user input. */
export function makeRows(count: number): Row[] {
  return Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    name: i % 10 === 0 ? `O'Brien & <Sons> ${i}` : `User number ${i}`,
    email: `user${i}@example.com`,
    role: i % 3 === 0 ? "admin" : "user",
  }));
}

/** Our `html` tag. */
// deno-fmt-ignore: the formatter would reflow the HTML inside `html`.
export function renderOurs(rows: Row[]): string {
  return String(html`<table class="users">
<thead><tr><th>Id</th><th>Name</th><th>Email</th><th>Role</th></tr></thead>
<tbody>${rows.map((row) => html`<tr class="${row.role}"><td>${row.id}</td><td>${row.name}</td><td><a href="mailto:${row.email}">${row.email}</a></td><td>${row.role}</td></tr>`)}</tbody>
</table>`);
}

/** Hono's `html` helper (`hono/html`), synchronous values only. */
export function renderHono(rows: Row[]): string {
  return String(honoHtml`<table class="users">
<thead><tr><th>Id</th><th>Name</th><th>Email</th><th>Role</th></tr></thead>
<tbody>${
    rows.map((row) =>
      honoHtml`<tr class="${row.role}"><td>${row.id}</td><td>${row.name}</td><td><a href="mailto:${row.email}">${row.email}</a></td><td>${row.role}</td></tr>`
    )
  }</tbody>
</table>`);
}

/** Plain template-literal concatenation with the same escaping. */
export function renderPlain(rows: Row[]): string {
  let body = "";
  for (const row of rows) {
    body += `<tr class="${escapeHtml(row.role)}"><td>${row.id}</td><td>${
      escapeHtml(row.name)
    }</td><td><a href="mailto:${escapeHtml(row.email)}">${
      escapeHtml(row.email)
    }</a></td><td>${escapeHtml(row.role)}</td></tr>`;
  }
  return `<table class="users">
<thead><tr><th>Id</th><th>Name</th><th>Email</th><th>Role</th></tr></thead>
<tbody>${body}</tbody>
</table>`;
}
