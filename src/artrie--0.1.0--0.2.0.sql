/* artrie--0.1.0--0.2.0.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION artrie UPDATE TO '0.2.0'" to load this file. \quit
