/tmp/guardtools/node_modules/.bin/jest --ci --verbose
