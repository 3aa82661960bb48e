import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

// Debian's chromium package; CHROMIUM_PATH points elsewhere.
const DEFAULT_CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export type BrowserLaunch =
  | { browser: Browser; description: string }
  | { browser: undefined; description: string };

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}

/**
 * Headless Chromium, when one is installed, to click through the hosted page as a person
 * would. Without one the demo makes the page's own completion call instead.
 */
export async function launchChromium(env: NodeJS.ProcessEnv = process.env): Promise<BrowserLaunch> {
  const executablePath = env.CHROMIUM_PATH || DEFAULT_CHROMIUM;
  if (!existsSync(executablePath)) {
    return {
      browser: undefined,
      description: `none at ${executablePath}: the page's completion call is made instead. To see a real browser click through the page, install Chromium (Debian/Ubuntu: sudo apt-get install chromium; macOS: brew install --cask chromium) or set CHROMIUM_PATH to a Chromium or Chrome binary`,
    };
  }
  try {
    const browser = await chromium.launch({
      executablePath,
      args: CHROMIUM_ARGS,
      // The demo closes the browser itself on Ctrl+C, then exits with its own status.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    return { browser, description: `headless Chromium ${browser.version()}` };
  } catch (error) {
    return {
      browser: undefined,
      description: `Chromium at ${executablePath} did not start (${firstLine(error)}): the page's completion call is made instead`,
    };
  }
}
