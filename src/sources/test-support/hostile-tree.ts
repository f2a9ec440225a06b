import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * Credentials in their real formats, assembled at run time so this source file holds none.
 * Each carries a unique word, so a search for it shows whether the file was indexed.
 */
export const fakeSecrets = {
  awsKey: ['AKIA', 'Q3EGRTZ5', 'YB7PLXW2'].join(''),
  githubToken: ['ghp', '_', 'a1B2c3D4e5F6g7H8i9J0', 'k1L2m3N4o5P6q7R8'].join(''),
  stripeKey: ['sk', '_live_', '4eC39HqLyjWDarjtT1zdp7dc'].join(''),
  privateKey: ['-----BEGIN OPENSSH ', 'PRIVATE KEY-----\n', 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW', '\n-----END OPENSSH PRIVATE KEY-----\n'].join(''),
};

/** Marker words: each appears in exactly one secret file. */
export const markers = {
  outside: 'wombatshadowline',
  env: 'zebracornenvvalue',
  idRsa: 'narwhalkeycomment',
  aws: 'okapiawsprofile',
  gitConfig: 'pangolingitremote',
  npmrc: 'axolotlnpmauth',
  secretsYaml: 'quetzalsecretsyaml',
  settings: 'quokkasettingsfile',
  envExample: 'capybaraexamplevalue',
  stripeDoc: 'ibexstripedoc',
};

export interface HostileTree {
  workspace: string;
  repo: string;
  outsideFile: string;
}

/**
 * A project folder as an attacker would ship it: links out of the root (a file, /proc/self/environ,
 * /dev/zero, a folder), a link to its own .env, a FIFO, an oversize file, and credentials in the
 * files where people keep them. The folder `workspace/outside` stands for the rest of the disk.
 */
export async function writeHostileTree(workspace: string): Promise<HostileTree> {
  const repo = join(workspace, 'repo');
  const outside = join(workspace, 'outside');
  const outsideFile = join(outside, 'shadow.txt');
  const files: Record<string, string> = {
    'README.md': '# Shop\n\nRefunds are issued through the payment gateway.\n',
    'src/refund.ts': 'export function refund(cents: number): number {\n  return -cents;\n}\n',
    '.env': `API_TOKEN=${markers.env}\nDATABASE_PASSWORD=hunter2\n`,
    '.env.example': `API_TOKEN=${markers.envExample}\n`,
    'keys/id_rsa': `${fakeSecrets.privateKey}# ${markers.idRsa}\n`,
    'keys/id_rsa.pub': 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPublicHalf user@host\n',
    '.aws/credentials': `[default]\n# ${markers.aws}\naws_access_key_id = ${fakeSecrets.awsKey}\n`,
    '.git/config': `[remote "origin"]\n  url = https://x:${markers.gitConfig}@example.com/repo.git\n`,
    '.npmrc': `//registry.npmjs.org/:_authToken=${markers.npmrc}\n`,
    'secrets.yaml': `password: ${markers.secretsYaml}\n`,
    '.docker/config.json': '{"auths":{"registry.example.com":{"auth":"c2VjcmV0"}}}\n',
    'certs/server.pem': `${fakeSecrets.privateKey}`,
    'config/settings.py': `# ${markers.settings}\nAWS_KEY = "${fakeSecrets.awsKey}"\nDEBUG = False\n`,
    'docs/tokens.md': `# Tokens ${markers.stripeDoc}\n\nStripe: ${fakeSecrets.stripeKey}\n`,
  };
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(repo, path)), { recursive: true });
    await writeFile(join(repo, path), text);
  }
  await mkdir(outside, { recursive: true });
  await writeFile(outsideFile, `root:${markers.outside}:19000:0:99999:7:::\n`);
  await symlink(outsideFile, join(repo, 'shadow-link.txt'));
  await symlink('/proc/self/environ', join(repo, 'environ-link.txt'));
  await symlink('/dev/zero', join(repo, 'zero-link.txt'));
  await symlink(outside, join(repo, 'linked-dir'));
  await symlink('.env', join(repo, 'dotenv-link.txt'));
  await symlink('.git', join(repo, 'gitdir'));
  execFileSync('mkfifo', [join(repo, 'pipe.txt')]);
  await writeFile(join(repo, 'big.txt'), `${'x'.repeat(99)}\n`.repeat(20_000)); // 2 MB, over the 1 MB default cap
  return { workspace, repo, outsideFile };
}
