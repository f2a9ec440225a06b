// Stops a `loci serve` child and waits for it to end (bounded), so its folder can be removed:
// on SIGTERM the server saves its files, and removing the folder meanwhile failed with ENOTEMPTY.
export async function stopServer(child, boundMs = 15_000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), boundMs);
  await exited;
  clearTimeout(timer);
}
