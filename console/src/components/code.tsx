import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import kotlin from 'highlight.js/lib/languages/kotlin';
import markdown from 'highlight.js/lib/languages/markdown';
import php from 'highlight.js/lib/languages/php';
import python from 'highlight.js/lib/languages/python';
import ruby from 'highlight.js/lib/languages/ruby';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import swift from 'highlight.js/lib/languages/swift';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { useMemo } from 'preact/hooks';

const LANGUAGES = { bash, c, cpp, csharp, css, go, java, javascript, json, kotlin, markdown, php, python, ruby, rust, sql, swift, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);

/** loci's language ids → the highlighter's. */
const ALIASES: Record<string, string> = { tsx: 'typescript', jsx: 'javascript', shell: 'bash', html: 'xml', vue: 'xml', svelte: 'xml', 'c-sharp': 'csharp', toml: 'yaml' };

function highlightLines(text: string, language: string | undefined): string[] {
  const id = language ? (ALIASES[language] ?? language) : undefined;
  // The highlighter escapes the text it is given; what it returns is its own markup around that.
  const html = id && hljs.getLanguage(id) ? hljs.highlight(text, { language: id, ignoreIllegals: true }).value : escapeHtml(text);
  return splitHighlighted(html);
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** Splits highlighted HTML into lines, closing and reopening spans that cross a line break. */
function splitHighlighted(html: string): string[] {
  const lines: string[] = [];
  const open: string[] = [];
  let current = '';
  const tag = /<span[^>]*>|<\/span>|\n/g;
  let last = 0;
  for (let match = tag.exec(html); match; match = tag.exec(html)) {
    current += html.slice(last, match.index);
    last = match.index + match[0].length;
    if (match[0] === '\n') {
      lines.push(current + '</span>'.repeat(open.length));
      current = open.join('');
    } else if (match[0] === '</span>') {
      open.pop();
      current += match[0];
    } else {
      open.push(match[0]);
      current += match[0];
    }
  }
  lines.push(current + html.slice(last));
  return lines;
}

export interface CodeProps {
  text: string;
  language?: string;
  /** Number of the first line shown. */
  startLine: number;
  /** Lines to mark (the chunk in a file view). */
  mark?: { from: number; to: number };
  /** Lines where another result of the same file begins (neighbouring chunks). */
  anchors?: number[];
}

/** Code with syntax highlighting and line numbers. */
export function Code({ text, language, startLine, mark, anchors }: CodeProps) {
  const lines = useMemo(() => highlightLines(text, language), [text, language]);
  return (
    <pre class="code">
      {lines.map((line, index) => {
        const number = startLine + index;
        const marked = mark && number >= mark.from && number <= mark.to;
        return (
          <div key={number} id={`L${number}`} class={`line${marked ? ' marked' : ''}${anchors?.includes(number) ? ' anchor' : ''}`}>
            <span class="ln" aria-hidden="true">
              {number}
            </span>
            {/* The highlighter's output: its own spans around text it escaped. */}
            <code dangerouslySetInnerHTML={{ __html: line || ' ' }} />
          </div>
        );
      })}
    </pre>
  );
}
