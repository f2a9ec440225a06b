/**
 * Whether two near-identical memory texts say the same thing. Dedupe merges a new note
 * into an old one only when they agree: a vector 0.99 similar can still flip a port number
 * ("port is 5432" / "port is 6543"), a negation ("do not delete" / "do delete") or a name
 * ("Alice owns billing" / "Bob owns billing"), and merging those would silently keep the
 * old fact. Conservative by design: when in doubt the texts disagree and both are kept.
 */
export function textsAgree(a: string, b: string): boolean {
  const left = facts(a);
  const right = facts(b);
  if (left.entities.length > MAX_ENTITIES || right.entities.length > MAX_ENTITIES) return false;
  return (
    sameSet(left.numbers, right.numbers) &&
    left.negations === right.negations &&
    left.entities.every((entity) => right.words.includes(` ${entity} `)) &&
    right.entities.every((entity) => left.words.includes(` ${entity} `))
  );
}

interface Facts {
  numbers: Set<string>;
  /** How many negating words the text holds ("not", "no", "never", "n't", …). */
  negations: number;
  /** Names, identifiers, quoted strings, URLs and paths, each in normalised form. */
  entities: string[];
  /** The whole text in normalised form, padded with spaces for whole-word lookups. */
  words: string;
}

const NUMBER_WORDS = new Set([
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'twenty',
  'hundred',
  'thousand',
  'million',
  'billion',
  'half',
  'once',
  'twice',
]);
const NEGATIONS = new Set([
  'not',
  'no',
  'never',
  'none',
  'nobody',
  'nothing',
  'nowhere',
  'neither',
  'nor',
  'cannot',
  'without',
  'dont',
  'doesnt',
  'didnt',
  'isnt',
  'arent',
  'wasnt',
  'werent',
  'wont',
  'cant',
  'couldnt',
  'shouldnt',
  'wouldnt',
  'mustnt',
  'hasnt',
  'havent',
  'hadnt',
  'aint',
  'neednt',
]);
/** Capitalised only because they open a sentence, not names. */
const FUNCTION_WORDS = new Set([
  'a',
  'an',
  'the',
  'this',
  'that',
  'these',
  'those',
  'i',
  'we',
  'you',
  'he',
  'she',
  'it',
  'they',
  'my',
  'our',
  'your',
  'his',
  'her',
  'its',
  'their',
  'in',
  'on',
  'at',
  'to',
  'for',
  'of',
  'by',
  'with',
  'from',
  'and',
  'or',
  'but',
  'if',
  'when',
  'then',
  'so',
  'also',
  'there',
  'here',
  'is',
  'are',
  'was',
  'were',
  'be',
  'do',
  'does',
  'did',
  'will',
  'would',
  'can',
  'could',
  'should',
  'must',
  'may',
  'might',
  'have',
  'has',
  'had',
  'please',
  'always',
  'only',
  'all',
  'some',
]);
/** More names than this and the texts are treated as different (bounds the comparison's cost). */
const MAX_ENTITIES = 200;
const QUOTED = /"([^"\n]{1,200})"|“([^”\n]{1,200})”|`([^`\n]{1,200})`/g;

function facts(text: string): Facts {
  const numbers = new Set<string>();
  for (const match of text.matchAll(/\d+(?:[.,]\d+)*/g)) numbers.add(match[0].replace(/,(?=\d{3}(?!\d))/g, ''));
  const words = normalize(text);
  let negations = 0;
  for (const token of words.split(' ')) {
    if (NUMBER_WORDS.has(token)) numbers.add(token);
    if (NEGATIONS.has(token)) negations++;
  }
  const entities = new Set<string>();
  // Word by word (split on white space), so no pattern backtracks over a long text.
  for (const raw of text.split(/\s+/)) {
    const token = raw.slice(0, 300).replace(/^[("'`“‘[{<]+|[)"'`”’\]}>.,;:!?]+$/gu, '');
    if (token === '' || !isEntity(token)) continue;
    entities.add(normalize(token));
  }
  for (const match of text.matchAll(QUOTED)) entities.add(normalize(match[1] ?? match[2] ?? match[3] ?? ''));
  entities.delete('');
  return { numbers, negations, entities: [...entities], words: ` ${words} ` };
}

/** A name (capitalised, not a function word), an identifier, a URL or a path. */
function isEntity(token: string): boolean {
  if (/^\p{Lu}/u.test(token)) {
    // Negations and numbers are compared on their own; function words only open a sentence.
    const word = normalize(token);
    if (!FUNCTION_WORDS.has(word) && !NEGATIONS.has(word) && !NUMBER_WORDS.has(word)) return true;
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(token) || /[/\\]/.test(token)) return true;
  return /[_$#@]|\p{Ll}\p{Lu}|\p{L}\p{N}|\p{N}\p{L}|[\p{L}\p{N}][.:][\p{L}\p{N}]/u.test(token);
}

/** Lower case, apostrophes dropped ("don't" → "dont"), everything else not a letter or digit a space. */
function normalize(text: string): string {
  return text
    .toLowerCase()
    .replace(/[’']/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

function sameSet(a: Set<string>, b: Set<string>): boolean {
  if (a.size !== b.size) return false;
  for (const value of a) if (!b.has(value)) return false;
  return true;
}
