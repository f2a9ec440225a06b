import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeSecrets } from './test-support/hostile-tree.js';
import { classifyPaths } from './classify-paths.js';
import { findSecret, isSecretPath } from './secret-rules.js';
import { walkFolder } from './walk-folder.js';

describe('secret path rules', () => {
  it('match the files people keep credentials in, at any depth', () => {
    const secret = [
      '.env',
      '.env.local',
      'app/.env.production',
      '.envrc',
      'id_rsa',
      'home/.ssh/id_ed25519',
      'certs/server.pem',
      'tls/server.key',
      'store.p12',
      'cert.pfx',
      'android/release.keystore',
      'app.jks',
      '.npmrc',
      '.pypirc',
      '.netrc',
      '_netrc',
      '.git-credentials',
      'dotfiles/.aws/credentials',
      '.docker/config.json',
      'ops/.kube/config',
      'secrets.yaml',
      'config/secrets.yml',
      'credentials.json',
      'service-account-prod.json',
      'infra/terraform.tfstate',
      '.htpasswd',
    ];
    for (const path of secret) expect(isSecretPath(path), path).toBe(true);
  });

  it('leave templates, public keys and look-alikes alone', () => {
    const ordinary = [
      '.env.example',
      'app/.env.sample',
      '.env.template',
      'id_rsa.pub',
      'keys/id_ed25519.pub',
      'src/env.ts',
      'docs/secrets.md',
      'config.json',
      'docker/config.json',
      'kube/config',
      'src/key.ts',
      'README.md',
    ];
    for (const path of ordinary) expect(isSecretPath(path), path).toBe(false);
  });
});

describe('secret content', () => {
  it('finds private keys and high-confidence token formats', () => {
    expect(findSecret(`x = 1\n${fakeSecrets.privateKey}`)).toBe('private key');
    expect(findSecret(`aws_access_key_id = ${fakeSecrets.awsKey}`)).toBe('AWS access key');
    expect(findSecret(`token: "${fakeSecrets.githubToken}"`)).toBe('GitHub token');
    expect(findSecret(`STRIPE=${fakeSecrets.stripeKey}`)).toBe('Stripe key');
    expect(findSecret(['const key = "AIza', 'SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"'].join(''))).toBe('Google API key');
    expect(findSecret(['SLACK=xox', 'b-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx'].join(''))).toBe('Slack token');
    expect(findSecret(['OPENAI_API_KEY=sk-', 'proj-', 'a'.repeat(20), 'B'.repeat(30)].join(''))).toBe('OpenAI key');
    expect(findSecret(['//registry.npmjs.org/:_authToken=npm', '_', 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'].join(''))).toBe('npm token');
  });

  it('does not flag documentation, examples and ordinary code', () => {
    for (const text of [
      'A key file starts with -----BEGIN RSA PRIVATE KEY----- and ends with a footer.',
      'aws_access_key_id = AKIAIOSFODNN7EXAMPLE',
      'LOCI_LLM_API_KEY=sk-local',
      'const pattern = /sk_live_[0-9a-z]+/;',
      'export function askForKey(): string { return process.env.API_KEY ?? ""; }',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.signature', // JWTs are left alone: too often test fixtures
    ]) {
      expect(findSecret(text), text).toBeUndefined();
    }
  });
});

describe('walking and classifying with the secret rules', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'loci-secret-walk-'));
    for (const [path, text] of Object.entries({ 'src/app.ts': 'export {}\n', '.env': 'A=1\n', '.env.example': 'A=\n', 'keys/id_rsa': 'k\n', 'keys/id_rsa.pub': 'p\n', '.git/config': '[core]\n' })) {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), text);
    }
    await symlink('.env', join(root, 'env-link.txt'));
    await symlink('.git', join(root, 'gitdir'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('skips secrets files as `secret`, links to them included, unless asked to index them', async () => {
    const walk = await walkFolder({ root, maxFileBytes: 1000 });
    expect(walk.files.map((file) => file.path)).toEqual(['.env.example', 'keys/id_rsa.pub', 'src/app.ts']);
    expect(walk.skipped.secret).toBe(3);
    expect(walk.skipped['excluded-directory']).toBe(2); // .git, and the link to it
    const opted = await walkFolder({ root, maxFileBytes: 1000, indexSecrets: true });
    expect(opted.files.map((file) => file.path)).toEqual(['.env', '.env.example', 'env-link.txt', 'keys/id_rsa', 'keys/id_rsa.pub', 'src/app.ts']);
  });

  it('classifies changed paths the same way (the watcher)', async () => {
    const classified = await classifyPaths({ root, maxFileBytes: 1000 }, ['.env', 'env-link.txt', 'gitdir/config', 'src/app.ts']);
    expect(classified.files.map((file) => file.path)).toEqual(['src/app.ts']);
    expect(classified.gone).toEqual(
      expect.arrayContaining([
        { path: '.env', reason: 'secret' },
        { path: 'env-link.txt', reason: 'secret' },
        { path: 'gitdir/config', reason: 'excluded-directory' },
      ]),
    );
  });
});
