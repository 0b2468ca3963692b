// Counts store methods written in both drivers: class methods and top-level functions in
// src/store/sqlite/*.ts and src/store/postgres/*.ts, keyed by (class name without the driver
// prefix, method name) or function name. Usage: node scripts/store-duplication.mjs [repo dir] [--list] (docs/architecture.md, "The store, written once")
import ts from 'typescript';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
const root = process.argv[2] ?? '.';
const list = process.argv.includes('--list');
function collect(dir, prefix) {
  const out = new Map();
  if (!existsSync(dir)) return out;
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(join(dir, f), 'utf8');
    const sf = ts.createSourceFile(f, text, ts.ScriptTarget.Latest, true);
    const add = (key, node) => out.set(key, { file: f, text: node.getText(sf).replace(/Sqlite|Postgres|sqlite|postgres/g, 'X') });
    for (const st of sf.statements) {
      if (ts.isFunctionDeclaration(st) && st.name && st.body) add(`(helper) fn ${st.name.text}`, st);
      if (ts.isClassDeclaration(st) && st.name) {
        const cls = st.name.text.replace(prefix, '');
        for (const m of st.members) {
          const hidden = ts.getCombinedModifierFlags(m) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected);
          const contract = !/Context$/.test(cls) && !hidden;
          if ((ts.isMethodDeclaration(m) || ts.isGetAccessor(m)) && m.name && m.body) add(`${contract ? '' : '(helper) '}${cls}.${m.name.getText(sf)}`, m);
        }
      }
    }
  }
  return out;
}
const a = collect(join(root, 'src/store/sqlite'), /^Sqlite/);
const b = collect(join(root, 'src/store/postgres'), /^Postgres/);
const both = [...a.keys()].filter((k) => b.has(k)).sort();
const same = both.filter((k) => a.get(k).text === b.get(k).text);
const contract = both.filter((k) => !k.startsWith('(helper)'));
console.log(`store methods (public, outside the contexts) in both drivers: ${contract.length}, textually identical ${contract.filter((k) => same.includes(k)).length}; with helpers, contexts and private methods: ${both.length}, identical ${same.length}`);
if (list) for (const k of both) console.log(`${same.includes(k) ? '=' : '~'} ${k}  (${a.get(k).file} / ${b.get(k).file})`);
