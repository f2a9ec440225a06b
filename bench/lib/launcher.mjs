// Times new processes from a small process. A child forked by a process holding gigabytes (the
// peer bench holds its data and every engine) waits while the kernel copies that parent's page
// tables: ~45 ms at 1.5 GB on this machine, for every engine alike, and no user's shell pays it.
// The bench starts this launcher before it loads anything; the launcher spawns each child and
// times it (whole process: start, answer, exit).
// Usage: const launcher = startLauncher(); await launcher.run(file, args, { timeoutMs }); launcher.stop();
import { fork, spawnSync } from 'node:child_process';

if (process.argv[2] === '--serve' && process.send) {
  process.on('message', ({ id, file, args, timeoutMs }) => {
    const started = performance.now();
    const result = spawnSync(process.execPath, [file, ...args], { encoding: 'utf8', timeout: timeoutMs });
    const wallMs = performance.now() - started;
    if (process.connected) process.send({ id, status: result.status, stdout: result.stdout ?? '', stderr: result.stderr || result.error?.message || '', wallMs });
  });
  process.on('disconnect', () => process.exit(0));
}

/** A launcher process; runs one child at a time, in order. */
export function startLauncher() {
  const child = fork(new URL(import.meta.url).pathname, ['--serve'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const pending = new Map();
  let nextId = 1;
  child.on('message', (reply) => {
    pending.get(reply.id)?.(reply);
    pending.delete(reply.id);
  });
  child.on('error', () => undefined); // a send after it exited: run() answers that itself
  child.on('exit', () => {
    for (const resolve of pending.values()) resolve({ status: null, stdout: '', stderr: 'the launcher exited', wallMs: 0 });
    pending.clear();
  });
  return {
    /** Runs `node file ...args` and resolves with its exit status, output and whole-process wall time. */
    run(file, args, { timeoutMs = 600_000 } = {}) {
      if (!child.connected) return Promise.resolve({ status: null, stdout: '', stderr: 'the launcher exited', wallMs: 0 });
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        child.send({ id, file, args, timeoutMs });
      });
    },
    stop() {
      if (child.connected) child.disconnect();
    },
  };
}
