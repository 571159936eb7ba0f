import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Debian's Chromium, which CI installs; the browser tests drive it through playwright-core. */
export const CHROMIUM = "/usr/bin/chromium";

const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--headless",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-sync",
];

/** Whether the browser tests run here: Chromium is installed, or this is CI, where its absence is a failure. */
export function browserTestsRun(what: string): boolean {
  const available = existsSync(CHROMIUM);
  const inCi = process.env.CI === "true";
  if (!available && !inCi) console.warn(`NOTICE: ${CHROMIUM} is missing, so the browser test of ${what} is skipped.`);
  return available || inCi;
}

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing; CI must install Debian's chromium package`);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}
