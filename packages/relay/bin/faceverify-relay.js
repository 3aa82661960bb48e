#!/usr/bin/env node
// A committed launcher, so the command links at install time, before dist/ is built.
import '../dist/main.js';
