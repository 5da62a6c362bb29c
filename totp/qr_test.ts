// totpQrSvg's SVG, drawn by Chromium (headless --screenshot) and read
// back by Debian's zbarimg: the decoded text must be the URI. Deno-only
// (runs programs).
import assert from "node:assert/strict";
import { createTotpSecret, totpQrSvg, totpUri } from "@fetchkit/toolkit/totp";
import { chromiumOrSkip } from "../_tools/chromium.ts";
import { run, toolOrSkip } from "./_test_tools.ts";

/** The text zbarimg reads from `svg` drawn at `pixels` pixels square. */
async function decode(
  chromium: string,
  zbarimg: string,
  svg: string,
  pixels: number,
): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "totp-qr-" });
  try {
    await Deno.writeTextFile(
      `${dir}/qr.html`,
      `<!doctype html><body style="margin:0;background:#fff"><div style="width:${pixels}px;height:${pixels}px">${svg}</div>`,
    );
    await run(chromium, [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      `--user-data-dir=${dir}/profile`,
      `--window-size=${pixels + 40},${pixels + 40}`,
      `--screenshot=${dir}/qr.png`,
      `file://${dir}/qr.html`,
    ]);
    return (await run(zbarimg, ["--quiet", "--raw", `${dir}/qr.png`]))
      .replace(/\n$/, "");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("totpQrSvg: zbarimg reads the URI back from the drawn SVG", async () => {
  const zbarimg = await toolOrSkip("zbarimg", "the QR decoding test");
  const chromium = await chromiumOrSkip("the QR decoding test");
  if (zbarimg === undefined || chromium === undefined) return;
  const uris = [
    totpUri({
      secret: createTotpSecret(),
      issuer: "fetchkit auth example",
      account: "ada.lovelace+2fa@example.com",
    }),
    totpUri({
      secret: createTotpSecret(64),
      issuer: "Ex & Co",
      account: "ünïcødé@example.org",
      digits: 8,
      algorithm: "SHA-512",
    }),
  ];
  for (const [i, uri] of uris.entries()) {
    // The page's size, and a small one (a phone's camera sees less).
    assert.equal(
      await decode(chromium, zbarimg, totpQrSvg(uri), i ? 200 : 300),
      uri,
    );
  }
});
