import { describe, expect, it } from 'vitest';
import { gitCredentialFor } from './remote-repo.js';

describe('gitCredentialFor', () => {
  const env = { LOCI_GIT_TOKEN: 'loci-token', GITHUB_TOKEN: 'github-token' };

  it('sends LOCI_GIT_TOKEN to no host unless the user lists it', () => {
    expect(gitCredentialFor('https://gitlab.example.com/team/app.git', env, [])).toBeUndefined();
    expect(gitCredentialFor('https://evil.example.net/team/app.git', env, ['gitlab.example.com'])).toBeUndefined();
    expect(gitCredentialFor('https://gitlab.example.com.evil.net/app.git', env, ['gitlab.example.com'])).toBeUndefined();
    expect(gitCredentialFor('https://gitlab.example.com/team/app.git', env, ['GitLab.example.com'])).toEqual({ token: 'loci-token', variable: 'LOCI_GIT_TOKEN', scope: 'https://gitlab.example.com/' });
  });

  it('matches a listed port exactly, and a bare host on any port', () => {
    expect(gitCredentialFor('https://127.0.0.1:8443/r.git', env, ['127.0.0.1:9000'])).toBeUndefined();
    expect(gitCredentialFor('https://127.0.0.1:8443/r.git', env, ['127.0.0.1:8443'])?.scope).toBe('https://127.0.0.1:8443/');
    expect(gitCredentialFor('https://127.0.0.1:8443/r.git', env, ['127.0.0.1'])?.token).toBe('loci-token');
  });

  it('never sends a token over plain http, ssh or file URLs', () => {
    expect(gitCredentialFor('http://gitlab.example.com/team/app.git', env, ['gitlab.example.com'])).toBeUndefined();
    expect(gitCredentialFor('http://github.com/org/repo.git', env, ['github.com'])).toBeUndefined();
    expect(gitCredentialFor('ssh://git@gitlab.example.com/team/app.git', env, ['gitlab.example.com'])).toBeUndefined();
    expect(gitCredentialFor('git@github.com:org/repo.git', env, ['github.com'])).toBeUndefined();
  });

  it('sends GITHUB_TOKEN to github.com only', () => {
    expect(gitCredentialFor('https://github.com/org/repo.git', { GITHUB_TOKEN: 'github-token' }, [])).toEqual({ token: 'github-token', variable: 'GITHUB_TOKEN', scope: 'https://github.com/' });
    expect(gitCredentialFor('https://gitlab.com/org/repo.git', { GITHUB_TOKEN: 'github-token' }, [])).toBeUndefined();
    expect(gitCredentialFor('https://github.com.evil.net/org/repo.git', { GITHUB_TOKEN: 'github-token' }, ['github.com.evil.net'])).toBeUndefined();
    // A listed LOCI_GIT_TOKEN wins on github.com.
    expect(gitCredentialFor('https://github.com/org/repo.git', env, ['github.com'])?.variable).toBe('LOCI_GIT_TOKEN');
  });
});
