/tmp/guardtools/node_modules/.bin/vitest run src
