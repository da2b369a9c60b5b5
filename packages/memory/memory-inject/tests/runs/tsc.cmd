/tmp/guardtools/node_modules/.bin/tsc -p tsconfig.json --noEmit
