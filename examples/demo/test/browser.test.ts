import { expect, it } from 'vitest';
import { launchChromium } from '../src/browser.js';

it('without Chromium, says how to install one and how to point at one', async () => {
  const launch = await launchChromium({ CHROMIUM_PATH: '/nonexistent/chromium' });
  expect(launch.browser).toBeUndefined();
  expect(launch.description).toContain('none at /nonexistent/chromium');
  expect(launch.description).toContain('sudo apt-get install chromium');
  expect(launch.description).toContain('brew install --cask chromium');
  expect(launch.description).toContain('set CHROMIUM_PATH');
});
