/**
 * Firefox and WebKitGTK from Debian, for the element tests (web-test-runner.config.mjs) and the
 * end-to-end page checks: where they are, the settings they need on a machine with no display and
 * no sound, and WebKit's driver on a virtual X display.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';

const find = (...paths: (string | undefined)[]) => paths.find((p): p is string => !!p && existsSync(p));
const missing = (what: string, install: string) => new Error(`${what} not found: install it with \`apt-get install -y ${install}\`.`);

export function firefoxPath(): string {
  const path = find(process.env.FIREFOX_PATH, '/usr/bin/firefox-esr', '/usr/bin/firefox');
  if (!path) throw missing('Firefox (or set FIREFOX_PATH)', 'firefox-esr');
  return path;
}

export const FIREFOX_PREFS = {
  // Audio starts without a user gesture, as Chromium's --autoplay-policy=no-user-gesture-required allows.
  'media.autoplay.default': 0,
  'media.autoplay.blocking_policy': 0,
  // A machine without a sound server or card (CI) has no audio sink: Firefox then fails every
  // playing element with a decode error (OnMediaSinkAudioError). Its mock audio backend plays in
  // real time to no device, as Chromium's headless mode does by itself.
  'media.cubeb.force_mock_context': true,
};

export function miniBrowserPath(): string {
  const path = find(process.env.MINIBROWSER_PATH, '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser', '/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser');
  if (!path || !find('/usr/bin/WebKitWebDriver')) throw missing('WebKitWebDriver and MiniBrowser', 'webkit2gtk-driver');
  return path;
}

/** WebDriver capabilities for WebKitGTK's MiniBrowser (classic WebDriver: 2.50 has no BiDi). */
export const webkitCapabilities = (binary = miniBrowserPath()) => ({
  browserName: 'MiniBrowser',
  'wdio:enforceWebDriverClassic': true,
  'webkitgtk:browserOptions': { binary, args: ['--automation', '--autoplay-policy=allow'] },
});

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });

/** A virtual X display (`:N`) from Xvfb, which picks a free number and writes it to fd 3. */
function xvfb(children: ChildProcess[]): Promise<string> {
  if (!find('/usr/bin/Xvfb')) throw missing('Xvfb (for WebKit)', 'xvfb');
  const child = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] });
  children.push(child);
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    let out = '';
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(`:${out.trim()}`);
    });
    child.once('exit', (code) => reject(new Error(`Xvfb exited (${code}): ${err}`)));
  });
}

export interface WebKitDriver {
  port: number;
  /** Ends the driver (and the Xvfb started for it). */
  stop(): void;
}

/**
 * Starts WebKitWebDriver on a free port, on this display or, without one (MiniBrowser has no
 * headless mode), on an Xvfb display of its own; resolves once it answers.
 */
export async function startWebKitDriver(): Promise<WebKitDriver> {
  const children: ChildProcess[] = [];
  const stop = () => {
    for (const child of children.reverse()) if (child.exitCode === null) child.kill();
  };
  try {
    const env = { ...process.env };
    if (!env.DISPLAY) env.DISPLAY = await xvfb(children);
    const port = await freePort();
    // The driver starts MiniBrowser, which takes the display from the driver's environment.
    const driver = spawn('WebKitWebDriver', [`--port=${port}`], { stdio: 'ignore', env });
    children.push(driver);
    const deadline = Date.now() + 15_000;
    for (;;) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/status`)).ok) return { port, stop };
      } catch {
        // not listening yet
      }
      if (driver.exitCode !== null) throw new Error(`WebKitWebDriver exited (${driver.exitCode})`);
      if (Date.now() > deadline) throw new Error('WebKitWebDriver did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (error) {
    stop();
    throw error;
  }
}
