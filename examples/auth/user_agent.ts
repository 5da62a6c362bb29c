/**
 * "Firefox 128 on Windows": a device's name for the security page, from
 * its `User-Agent` header. A few ordered rules, not a database: browsers
 * that pretend to be others (Edge, Opera and Samsung Internet say
 * "Chrome", Chrome says "Safari") are tested first, and anything unknown
 * is "Unknown browser" / "unknown system" rather than a guess. The header
 * is the client's own claim, so the page shows it as a hint next to the
 * address and times, never as proof.
 *
 * @module
 */

/** A device as the page names it. */
export interface DeviceName {
  /** "Firefox 128", "Safari 17", "Unknown browser". */
  browser: string;
  /** "Windows", "macOS", "iOS", "Android 14", "Linux", "unknown system". */
  os: string;
}

const BROWSERS: [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\/(\d+)/, "Edge"],
  [/\bOPR\/(\d+)/, "Opera"],
  [/\bSamsungBrowser\/(\d+)/, "Samsung Internet"],
  [/\bFirefox\/(\d+)/, "Firefox"],
  [/\bFxiOS\/(\d+)/, "Firefox"],
  [/\bCriOS\/(\d+)/, "Chrome"],
  [/\bHeadlessChrome\/(\d+)/, "Chrome"],
  [/\bChrome\/(\d+)/, "Chrome"],
  [/\bVersion\/(\d+)[.\d]* (?:Mobile\/\S+ )?Safari\//, "Safari"],
  [/\bcurl\/(\d+)/, "curl"],
];

const SYSTEMS: [RegExp, (match: RegExpMatchArray) => string][] = [
  [/\b(?:iPhone|iPod)\b/, () => "iOS"],
  [/\biPad\b/, () => "iPadOS"],
  [/\bAndroid (\d+)/, (m) => `Android ${m[1]}`],
  [/\bAndroid\b/, () => "Android"],
  [/\bCrOS\b/, () => "ChromeOS"],
  [/\bWindows NT\b/, () => "Windows"],
  [/\bMac OS X\b|\bMacintosh\b/, () => "macOS"],
  [/\bLinux\b/, () => "Linux"],
];

/** The browser and system a `User-Agent` names. */
export function deviceName(userAgent: string | undefined): DeviceName {
  const agent = userAgent ?? "";
  let browser = "Unknown browser";
  for (const [pattern, name] of BROWSERS) {
    const match = agent.match(pattern);
    if (match) {
      browser = `${name} ${match[1]}`;
      break;
    }
  }
  let os = "unknown system";
  for (const [pattern, name] of SYSTEMS) {
    const match = agent.match(pattern);
    if (match) {
      os = name(match);
      break;
    }
  }
  return { browser, os };
}
