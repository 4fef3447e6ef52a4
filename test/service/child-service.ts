/**
 * The embedded service in a child process (`npm run service`'s own entry point), so a test can
 * tell a crash (the process ends) from a refusal, and read what the service logged.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../src/cli/service.ts', import.meta.url));

export interface ChildService {
  /** API base, ending in `/v1`. */
  url: string;
  origin: string;
  child: ChildProcess;
  /** Everything the service wrote to stdout and stderr so far. */
  output(): string;
  /** `undefined` while the process runs, else how it ended. */
  exited(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  stop(): Promise<void>;
}

export async function startChildService(args: string[] = []): Promise<ChildService> {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const ended = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve();
    }),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service did not start:\n${output}`)), 60_000);
    const check = () => {
      const match = /listening on (http:\/\/\S+\/v1)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', check);
    void ended.then(() => reject(new Error(`the service ended at start:\n${output}`)));
  });
  return {
    url,
    origin: new URL(url).origin,
    child,
    output: () => output,
    exited: () => exit,
    async stop() {
      if (!exit) child.kill('SIGTERM');
      await ended;
    },
  };
}
