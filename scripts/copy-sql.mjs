// tsc compiles TypeScript only; the drivers read their .sql files at run time, so copy them.
import { cpSync } from 'node:fs';

cpSync('src', 'dist', {
  recursive: true,
  filter: (src) => !/\.[cm]?ts$/.test(src),
});
