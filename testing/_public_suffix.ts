// Public suffixes the cookie jar refuses as a cookie's Domain (RFC 6265
// 5.3 step 5): every single label ("com", "uk", "localhost"), and the
// multi-label suffixes most often met, from the Public Suffix List
// (https://publicsuffix.org): second-level registries and the shared
// hosting domains where sites of different owners sit side by side. A
// small built-in list rather than the whole one (about 10,000 rules): a
// test client meets a handful of names, and needs no download.

const MULTI_LABEL = new Set([
  // Second-level registries.
  ..."co ac gov ltd me net nhs org plc police sch".split(" ").map((s) =>
    `${s}.uk`
  ),
  ..."com net org edu gov asn id".split(" ").map((s) => `${s}.au`),
  ..."co ne or ac go ad ed gr lg".split(" ").map((s) => `${s}.jp`),
  ..."co org net ac govt geek gen kiwi school".split(" ").map((s) => `${s}.nz`),
  ..."co or ne go ac re pe".split(" ").map((s) => `${s}.kr`),
  ..."co org net ac gov nic".split(" ").map((s) => `${s}.za`),
  ..."co net org firm gen ind ac edu gov res".split(" ").map((s) => `${s}.in`),
  ..."co ac gov net org muni".split(" ").map((s) => `${s}.il`),
  ..."co ac or go in".split(" ").map((s) => `${s}.th`),
  ..."co or ac go web".split(" ").map((s) => `${s}.id`),
  ..."com net org edu gov".split(" ").flatMap((s) =>
    "br cn mx ar tr tw hk sg my ph vn ua pl ru eg sa ng pk co pe".split(" ")
      .map((tld) => `${s}.${tld}`)
  ),
  // Shared hosting: each subdomain is another owner's site.
  "github.io",
  "gitlab.io",
  "herokuapp.com",
  "vercel.app",
  "netlify.app",
  "pages.dev",
  "workers.dev",
  "deno.dev",
  "fly.dev",
  "web.app",
  "firebaseapp.com",
  "appspot.com",
  "blogspot.com",
  "azurewebsites.net",
  "cloudfront.net",
  "s3.amazonaws.com",
  "onrender.com",
  "glitch.me",
  "repl.co",
]);

/** Whether `domain` (lower case, no leading dot) is a public suffix. */
export function isPublicSuffix(domain: string): boolean {
  return !domain.includes(".") || MULTI_LABEL.has(domain);
}
