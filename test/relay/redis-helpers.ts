/**
 * A real `redis-server` per test file (the Debian package; `.ci/run` installs it), on a free
 * loopback port, without persistence; and relay instances in processes of their own sharing it.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { RelayOptions } from '../../src/relay/index.js';
import { sleep } from './helpers.js';

const REDIS_SERVER = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';

export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export interface RedisServer {
  url: string;
  port: number;
  /** Stops the server (its data is gone: no persistence). */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
}

export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const lines = createInterface({ input: child.stdout! });
    const ready = new Promise<void>((resolve, reject) => {
      lines.on('line', (line) => line.includes('Ready to accept connections') && resolve());
      child!.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before it was ready`)));
    });
    await Promise.race([ready, sleep(10_000).then(() => assert.fail('redis-server did not start in 10 s'))]);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    async stop() {
      if (!child || child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface RelayInstance {
  /** `origin` + the relay's base path. */
  url: string;
  process: ChildProcess;
  /** What the instance logged. */
  output: () => string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Options that survive JSON (no store, log or fetch: the instance makes its own Redis store). */
export type InstanceOptions = Omit<Partial<RelayOptions>, 'store' | 'log' | 'fetch' | 'cors'> & { redisTimeoutMs?: number };

/** A relay in a process of its own, keeping its state in the Redis at `redisUrl`. */
export async function startRelayInstance(upstreamUrl: string, redisUrl: string, options: InstanceOptions = {}): Promise<RelayInstance> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL('./fixtures/relay-instance.ts', import.meta.url).pathname], {
    env: { ...process.env, UPSTREAM_URL: upstreamUrl, REDIS_URL: redisUrl, RELAY_OPTIONS: JSON.stringify(options) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the relay instance did not start in 30 s: ${output}`)), 30_000);
    lines.on('line', (line) => {
      output += `${line}\n`;
      const match = /^listening (\S+)$/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`the relay instance exited (${code}): ${output}`)));
  });
  return {
    url,
    process: child,
    output: () => output,
    async kill(signal = 'SIGKILL') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill(signal);
      await exited;
    },
  };
}
