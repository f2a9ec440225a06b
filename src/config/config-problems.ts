import { LociError } from '../errors/index.js';

/** One wrong value of a configuration: its key, the layer it came from, what is wrong. */
export interface ConfigProblem {
  path: string;
  origin: string;
  message: string;
}

/** CONFIG_INVALID listing each problem on a line of its own (the CLI prints `details.problems` a line each). */
export function invalidConfigError(problems: ConfigProblem[], options: { hint?: string; details?: Record<string, unknown> } = {}): LociError {
  const lines = problems.map((problem) => `  ${problem.path} (from ${problem.origin}): ${problem.message}`);
  return new LociError('CONFIG_INVALID', `Invalid configuration, ${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}:\n${lines.join('\n')}\n`, {
    ...(options.hint ? { hint: options.hint } : {}),
    details: { problems, ...options.details },
  });
}
