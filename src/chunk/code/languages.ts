import type { Node } from '@vscode/tree-sitter-wasm';

/** How one language's syntax tree names its definitions. */
export interface LanguageSpec {
  grammar: string;
  /** Node types that define a named symbol (function, class, method, …). */
  definitions: ReadonlySet<string>;
  /** Wrapper types whose inner node is the definition (export, decorators, templates). */
  unwrap?: (node: Node) => Node | undefined;
  /** The definition's name, when the `name` field is not it. */
  nameOf?: (node: Node) => string | undefined;
  /** More names bound to the same definition (chained assignments). */
  aliasesOf?: (node: Node) => string[];
  /** A block whose members are definitions but which names nothing itself (TypeScript's `declare global`): its body. */
  transparentBody?: (node: Node) => Node | undefined;
}

const functionValues = new Set(['arrow_function', 'function_expression', 'function', 'generator_function', 'class']);

// Wrappers that leave the value what it is: `(() => {}) as Fn`, `fn satisfies T`, `x!`.
const transparentValues = new Set(['as_expression', 'satisfies_expression', 'parenthesized_expression', 'non_null_expression', 'type_assertion']);

/** Whether a value is a function or class once type casts and parentheses are looked through. */
function holdsFunction(value: Node | null): boolean {
  let current = value;
  for (let depth = 0; current && depth < 8; depth++) {
    if (functionValues.has(current.type)) return true;
    if (!transparentValues.has(current.type)) return false;
    current =
      current.namedChildren.find((child) => child !== null && child.type !== 'type_annotation' && !child.type.endsWith('_type') && child.type !== 'type_identifier' && child.type !== 'generic_type') ??
      null;
  }
  return false;
}

/**
 * `res.send = function send(body) {…}`, `exports.parse = …`, `Router.prototype.route = …`:
 * CommonJS modules define their API by assignment. Named by the target, without `exports.`
 * and `.prototype`; `module.exports = …` names nothing.
 */
function assignmentTarget(left: Node | null): string | undefined {
  if (!left || (left.type !== 'member_expression' && left.type !== 'identifier')) return undefined;
  const name = left.text.replace(/^(module\.)?exports\./, '').replace(/\.prototype\./g, '.');
  return name === 'module.exports' || name === 'exports' || /\s|\[/.test(name) ? undefined : name;
}

/** The targets of `a = b = c = value`, outermost first, and the value they all receive. */
function assignmentChain(node: Node): { targets: Array<string | undefined>; value: Node | null } {
  const targets: Array<string | undefined> = [];
  let current: Node | null = node;
  for (let depth = 0; current?.type === 'assignment_expression' && depth < 16; depth++) {
    targets.push(assignmentTarget(current.childForFieldName('left')));
    current = current.childForFieldName('right');
  }
  return { targets, value: current };
}

function assignmentName(node: Node): string | undefined {
  const { targets, value } = assignmentChain(node);
  return holdsFunction(value) ? targets[0] : undefined;
}

function assignmentAliases(node: Node): string[] {
  if (node.type !== 'assignment_expression') return [];
  const { targets, value } = assignmentChain(node);
  return holdsFunction(value) ? targets.slice(1).filter((name): name is string => name !== undefined) : [];
}

function javascriptName(node: Node): string | undefined {
  if (node.type === 'assignment_expression') return assignmentName(node);
  if (node.type === 'lexical_declaration' || node.type === 'variable_declaration') {
    // An exported const is part of the module's surface whatever it holds (`createApp`,
    // `useStore = defineStore(…)`); a local one counts when it holds a function or class.
    const exported = node.parent?.type === 'export_statement' || node.parent?.type === 'ambient_declaration';
    for (const declarator of node.namedChildren) {
      if (declarator?.type !== 'variable_declarator') continue;
      const name = declarator.childForFieldName('name');
      if (name?.type !== 'identifier') continue; // destructuring names no single symbol
      if (exported || holdsFunction(declarator.childForFieldName('value'))) return name.text;
    }
    return undefined;
  }
  if (node.type === 'field_definition' || node.type === 'public_field_definition') {
    const value = node.childForFieldName('value');
    return holdsFunction(value) ? (node.childForFieldName('property') ?? node.childForFieldName('name'))?.text : undefined;
  }
  // `declare module "fs" { … }` is named by its string: fs.
  if (node.type === 'module' && node.childForFieldName('name')?.type === 'string') return node.childForFieldName('name')?.text.slice(1, -1) || undefined;
  return node.childForFieldName('name')?.text ?? (node.type.includes('function') ? 'default' : undefined);
}

/**
 * `export …`, `declare …` (ambient declarations, as in `.d.ts` files: `export declare function`),
 * and statements that hold a definition (a namespace inside a block is parsed as one).
 */
function javascriptUnwrap(node: Node): Node | undefined {
  let current = node;
  for (let depth = 0; depth < 3; depth++) {
    let inner: Node | null | undefined;
    if (current.type === 'export_statement') inner = current.childForFieldName('declaration') ?? current.childForFieldName('value');
    else if (current.type === 'ambient_declaration') inner = current.namedChildren.find((child) => child !== null && child.type !== 'statement_block');
    else if (current.type === 'expression_statement') inner = current.namedChildren.find((child) => child?.type === 'assignment_expression' || child?.type === 'internal_module');
    if (!inner) break;
    current = inner;
  }
  return current === node ? undefined : current;
}

/** `declare global { … }`: its members are top-level names. */
function globalBlock(node: Node): Node | undefined {
  if (node.type !== 'ambient_declaration' || !node.children.some((child) => child?.type === 'global')) return undefined;
  return node.namedChildren.find((child) => child?.type === 'statement_block') ?? undefined;
}

const javascriptDefinitions = new Set([
  'function_declaration',
  'generator_function_declaration',
  'class_declaration',
  'abstract_class_declaration',
  'interface_declaration',
  'type_alias_declaration',
  'enum_declaration',
  'method_definition',
  'method_signature',
  'abstract_method_signature',
  // Declarations without a body: overloads, `.d.ts` files, `declare function`.
  'function_signature',
  'internal_module',
  'module',
  'lexical_declaration',
  'variable_declaration',
  'field_definition',
  'public_field_definition',
  'function_expression',
  'assignment_expression',
]);

const javascript: LanguageSpec = {
  grammar: 'javascript',
  definitions: javascriptDefinitions,
  unwrap: javascriptUnwrap,
  nameOf: javascriptName,
  transparentBody: globalBlock,
  aliasesOf: assignmentAliases,
};

function stripGenerics(text: string): string {
  return text.replace(/<[\s\S]*>$/, '').trim();
}

function receiverType(node: Node): string | undefined {
  const receiver = node.childForFieldName('receiver');
  const parameter = receiver?.namedChildren.find((child) => child?.type === 'parameter_declaration');
  const type = parameter?.childForFieldName('type');
  return type ? stripGenerics(type.text.replace(/^\*/, '')) : undefined;
}

function cppName(node: Node): string | undefined {
  const named = node.childForFieldName('name');
  if (named) return named.text;
  let declarator = node.childForFieldName('declarator');
  for (let depth = 0; declarator && depth < 6; depth++) {
    if (['identifier', 'field_identifier', 'qualified_identifier', 'operator_name', 'destructor_name'].includes(declarator.type)) return declarator.text;
    declarator = declarator.childForFieldName('declarator');
  }
  return undefined;
}

export const languageSpecs: Record<string, LanguageSpec> = {
  typescript: { ...javascript, grammar: 'typescript' },
  tsx: { ...javascript, grammar: 'tsx' },
  javascript,
  python: {
    grammar: 'python',
    definitions: new Set(['function_definition', 'class_definition']),
    unwrap: (node) => (node.type === 'decorated_definition' ? (node.childForFieldName('definition') ?? undefined) : undefined),
  },
  go: {
    grammar: 'go',
    definitions: new Set(['function_declaration', 'method_declaration', 'type_declaration']),
    nameOf: (node) => {
      if (node.type === 'method_declaration') {
        const name = node.childForFieldName('name')?.text;
        const owner = receiverType(node);
        return owner && name ? `${owner}.${name}` : name;
      }
      if (node.type === 'type_declaration') return node.namedChildren.find((child) => child?.type === 'type_spec')?.childForFieldName('name')?.text;
      return node.childForFieldName('name')?.text;
    },
  },
  rust: {
    grammar: 'rust',
    definitions: new Set(['function_item', 'function_signature_item', 'struct_item', 'enum_item', 'union_item', 'trait_item', 'impl_item', 'mod_item', 'macro_definition', 'type_item']),
    nameOf: (node) => {
      if (node.type === 'impl_item') {
        const type = node.childForFieldName('type');
        return type ? stripGenerics(type.text) : undefined;
      }
      return node.childForFieldName('name')?.text;
    },
  },
  java: {
    grammar: 'java',
    definitions: new Set(['class_declaration', 'interface_declaration', 'enum_declaration', 'record_declaration', 'annotation_type_declaration', 'method_declaration', 'constructor_declaration']),
  },
  csharp: {
    grammar: 'c-sharp',
    definitions: new Set([
      'namespace_declaration',
      'class_declaration',
      'struct_declaration',
      'interface_declaration',
      'enum_declaration',
      'record_declaration',
      'method_declaration',
      'constructor_declaration',
      'property_declaration',
      'delegate_declaration',
    ]),
  },
  cpp: {
    grammar: 'cpp',
    definitions: new Set(['function_definition', 'class_specifier', 'struct_specifier', 'namespace_definition', 'enum_specifier']),
    unwrap: (node) => (node.type === 'template_declaration' ? (node.namedChildren.find((child) => child?.type !== 'template_parameter_list') ?? undefined) : undefined),
    nameOf: cppName,
  },
  ruby: { grammar: 'ruby', definitions: new Set(['method', 'singleton_method', 'class', 'module']) },
  php: {
    grammar: 'php',
    definitions: new Set(['function_definition', 'class_declaration', 'method_declaration', 'interface_declaration', 'trait_declaration', 'enum_declaration']),
  },
  bash: { grammar: 'bash', definitions: new Set(['function_definition']) },
};
languageSpecs.c = languageSpecs.cpp as LanguageSpec;

export function specFor(language: string): LanguageSpec | undefined {
  return languageSpecs[language];
}
