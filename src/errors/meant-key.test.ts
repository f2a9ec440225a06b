import { describe, expect, it } from 'vitest';
import { checkLanguageNames } from '../retrieve/language-aliases.js';
import { parseRoles } from '../retrieve/role-filter.js';
import { meantChoice } from './meant-key.js';

describe('meantChoice', () => {
  it('names the choice a value misspells: case, a letter, swapped letters, a plural', () => {
    expect(meantChoice('lexcial', ['hybrid', 'vector', 'lexical'])).toBe(' Did you mean "lexical"?');
    expect(meantChoice('tests', ['implementation', 'test', 'docs'])).toBe(' Did you mean "test"?');
    expect(meantChoice('JSONL', ['json', 'jsonl'])).toBe(' Did you mean "jsonl"?');
    expect(meantChoice('banana', ['hybrid', 'vector', 'lexical'])).toBe('');
  });

  it('is offered for an unknown language or role', () => {
    expect(() => parseRoles(['tests'], '--role')).toThrow('Unknown --role "tests". Did you mean "test"?');
    expect(() => checkLanguageNames(['pyhton'], ['python'])).toThrow('Unknown language "pyhton". Did you mean "python"?');
    expect(() => checkLanguageNames(['klingon'], ['python'])).toThrow(/^Unknown language "klingon"\.$/);
  });
});
