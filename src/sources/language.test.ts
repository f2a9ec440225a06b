import { describe, expect, it } from 'vitest';
import { detectLanguage, sniffLanguage } from './language.js';

describe('languages', () => {
  it('detects a file language from its name', () => {
    expect(detectLanguage('src/app.ts')).toBe('typescript');
    expect(detectLanguage('Dockerfile')).toBe('dockerfile');
    expect(detectLanguage('notes')).toBe('text');
  });

  it('sniffs a nameless document from its first line, only when unmistakable', () => {
    expect(sniffLanguage('def writeBoolean(self, n):\n    """Writes a Boolean."""\n    pass')).toBe('python');
    expect(sniffLanguage('\n\n  async def fetch(url):\n    ...')).toBe('python');
    expect(sniffLanguage('@property\ndef name(self):\n    return 1')).toBe('python');
    expect(sniffLanguage('func (s *Server) Start() error {\n}')).toBe('go');
    expect(sniffLanguage('pub fn parse(input: &str) -> Result<()> {')).toBe('rust');
    expect(sniffLanguage('export function render(node) {\n}')).toBe('javascript');
    expect(sniffLanguage('interface User {\n  id: string;\n}')).toBe('typescript');
    expect(sniffLanguage('public static void main(String[] args) {')).toBe('java');
    for (const prose of ['Definitions of done vary.', 'def is short for definition', 'class was cancelled today', 'The function returns early.', '']) {
      expect(sniffLanguage(prose)).toBe('text');
    }
  });
});
