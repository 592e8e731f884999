// What a function writes to process.stdout and process.stderr, and the exit code it sets, for the
// in-process suites of code that ends a command line (lib/cli). Both streams and process.exitCode
// are put back afterwards, whatever happens.

export interface Captured<T> {
  result: T;
  stdout: string;
  stderr: string;
  exitCode: typeof process.exitCode;
}

export async function captured<T>(run: () => T | Promise<T>): Promise<Captured<T>> {
  const out: string[] = [];
  const err: string[] = [];
  const { stdout, stderr } = process;
  const writes = { stdout: stdout.write, stderr: stderr.write };
  const exitCode = process.exitCode;
  stdout.write = ((chunk: string | Uint8Array) => (out.push(String(chunk)), true)) as typeof stdout.write;
  stderr.write = ((chunk: string | Uint8Array) => (err.push(String(chunk)), true)) as typeof stderr.write;
  try {
    const result = await run();
    return { result, stdout: out.join(""), stderr: err.join(""), exitCode: process.exitCode };
  } finally {
    stdout.write = writes.stdout;
    stderr.write = writes.stderr;
    // Bun keeps a code set before when given undefined back: 0 is the same "no code" and does reset it.
    process.exitCode = exitCode ?? 0;
  }
}
