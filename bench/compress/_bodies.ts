/** The bodies the compress benchmarks compress: the same bytes each run. */

/** A pseudo-random generator with a fixed seed: the same bodies each run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

const WORDS = (
  "account order invoice customer shipped pending delivered refund total " +
  "price quantity product widget gadget premium standard express review " +
  "north south east west london paris tokyo berlin madrid oslo"
).split(" ");

export function htmlPage(bytes: number): string {
  const random = seeded(1);
  const pick = () => WORDS[Math.floor(random() * WORDS.length)];
  let rows = "";
  let id = 1000;
  while (rows.length < bytes - 600) {
    id += 1 + Math.floor(random() * 9);
    rows +=
      `<tr><td><a href="/orders/${id}">#${id}</a></td><td>${pick()} ${pick()}</td>` +
      `<td class="num">${(random() * 1000).toFixed(2)}</td><td>${pick()}</td>` +
      `<td><time datetime="2026-0${1 + Math.floor(random() * 9)}-1${
        Math.floor(random() * 9)
      }">${Math.floor(random() * 28) + 1} days ago</time></td></tr>\n`;
  }
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Orders</title>` +
    `<link rel="stylesheet" href="/assets/style.css"></head><body><header><a class="brand" href="/">Shop</a>` +
    `<nav><a href="/orders" aria-current="page">Orders</a></nav></header><main><h1>Orders</h1>` +
    `<table><thead><tr><th>Order</th><th>Items</th><th>Total</th><th>Status</th><th>When</th></tr></thead><tbody>\n` +
    rows + `</tbody></table></main></body></html>`;
}

export function jsonBody(bytes: number): string {
  const random = seeded(2);
  const pick = () => WORDS[Math.floor(random() * WORDS.length)];
  const items = [];
  let size = 0;
  for (let id = 1; size < bytes; id++) {
    const item = {
      id,
      name: `${pick()} ${pick()}`,
      price: Math.round(random() * 100000) / 100,
      tags: [pick(), pick()],
      inStock: random() > 0.3,
      updatedAt: new Date(1_700_000_000_000 + Math.floor(random() * 1e10))
        .toISOString(),
    };
    size += JSON.stringify(item).length + 1;
    items.push(item);
  }
  return JSON.stringify({ items });
}
