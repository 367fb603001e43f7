/*
 * The schema of the catalog and of chash's helpers.  Only the install
 * script runs this file.
 */
CREATE SCHEMA chash;
