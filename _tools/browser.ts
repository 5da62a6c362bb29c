// Test helper: Debian's chromium, headless, driven by playwright-core, with
// the flags every browser test uses (no sandbox in containers, no GPU, no
// traffic of its own off loopback).
import { type Browser, chromium } from "playwright-core";

/** Launches headless chromium at `executablePath` (see `chromiumOrSkip`). */
export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-quic",
      "--no-first-run",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
