NODE_PATH=/tmp/guardtools/node_modules /tmp/guardtools/node_modules/.bin/eslint src
