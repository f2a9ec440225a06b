import ignore from 'ignore';

/**
 * Files that hold credentials by convention, in .gitignore syntax (any depth). They are
 * never indexed nor served as includes unless the user opts in (`sources.indexSecrets`,
 * `loci index --include-secrets`). A repository's own ignore files cannot re-include them:
 * these rules are checked on their own, after the ignore rules.
 */
export const secretPathPatterns: readonly string[] = [
  // environment files; the checked-in templates stay indexable
  '.env',
  '.env.*',
  '.envrc',
  '!.env.example',
  '!.env.sample',
  '!.env.template',
  '!.env.dist',
  '!.env.defaults',
  // private keys and key stores (public halves such as id_rsa.pub stay)
  'id_rsa',
  'id_dsa',
  'id_ecdsa',
  'id_ed25519',
  'id_ecdsa_sk',
  'id_ed25519_sk',
  '*.pem',
  '*.key',
  '*.p12',
  '*.pfx',
  '*.p8',
  '*.ppk',
  '*.keystore',
  '*.jks',
  '*.kdbx',
  // tool credentials
  '.npmrc',
  '.pypirc',
  '.netrc',
  '_netrc',
  '.git-credentials',
  '.pgpass',
  '.htpasswd',
  '.vault-token',
  '**/.aws/credentials',
  '**/.docker/config.json',
  '**/.kube/config',
  '**/.config/gh/hosts.yml',
  '**/.gnupg/**',
  // secret stores and cloud state
  'secrets.yml',
  'secrets.yaml',
  'secrets.json',
  'credentials.json',
  'service-account*.json',
  'client_secret*.json',
  '*.tfstate',
  '*.tfstate.backup',
];

const matcher = ignore({ allowRelativePaths: true }).add([...secretPathPatterns]);

/** Whether a root-relative POSIX path names a conventional secrets file. */
export function isSecretPath(relativePath: string): boolean {
  return relativePath !== '' && matcher.ignores(relativePath);
}

/**
 * High-confidence credential formats only (fixed prefixes, exact lengths), so ordinary code
 * is not withheld. A private key counts only with its base64 body, not a bare header in docs.
 */
const secretContentPatterns: ReadonlyArray<{ kind: string; pattern: RegExp }> = [
  { kind: 'private key', pattern: /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----\r?\n(?:[A-Za-z0-9-]+: [^\n]*\r?\n)*\r?\n?[A-Za-z0-9+/=]{40,}/ },
  { kind: 'AWS access key', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)(?!IOSFODNN7EXAMPLE)[0-9A-Z]{16}\b/ },
  { kind: 'GitHub token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})\b/ },
  { kind: 'GitLab token', pattern: /\bglpat-[A-Za-z0-9_-]{20}\b/ },
  { kind: 'Slack token', pattern: /\bxox[abposr]-[0-9]{6,}-[0-9A-Za-z-]{8,}/ },
  { kind: 'Slack webhook', pattern: /https:\/\/hooks\.slack\.com\/services\/T[A-Z0-9]{6,}\/B[A-Z0-9]{6,}\/[A-Za-z0-9]{20,}/ },
  { kind: 'Stripe key', pattern: /\b[sr]k_live_[0-9A-Za-z]{24,}\b/ },
  { kind: 'Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/ },
  { kind: 'OpenAI key', pattern: /\bsk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|[A-Za-z0-9]{48}(?![A-Za-z0-9_-]))/ },
  { kind: 'Anthropic key', pattern: /\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{80,}/ },
  { kind: 'npm token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/ },
  { kind: 'PyPI token', pattern: /\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}/ },
  { kind: 'Hugging Face token', pattern: /\bhf_[A-Za-z]{34}\b/ },
  { kind: 'SendGrid key', pattern: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/ },
];

/** The kind of the first credential found in a text (e.g. `private key`), or undefined. */
export function findSecret(text: string): string | undefined {
  for (const { kind, pattern } of secretContentPatterns) if (pattern.test(text)) return kind;
  return undefined;
}
