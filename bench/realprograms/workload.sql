-- SQLite's workload in bench/realprograms (builds.sh: @ROWS@ becomes the row count): an
-- in-memory table filled by a recursive query, an index, grouping, a join, pattern matching,
-- an update and a delete through a subquery, a sort of strings, string functions over every
-- row. The parser, the planner, the virtual machine, the B-trees and the sorter all work.
PRAGMA journal_mode=OFF;
PRAGMA synchronous=OFF;
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, grp INTEGER, val REAL, note TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<@ROWS@)
INSERT INTO t SELECT x, 'name' || (x*7919 % 10007), x % 97, (x*31 % 1000) / 7.0, printf('n%08d-%s', x, hex(x*13)) FROM c;
CREATE INDEX t_grp ON t(grp, val);
CREATE TABLE g(grp INTEGER PRIMARY KEY, label TEXT);
INSERT INTO g SELECT DISTINCT grp, 'group-' || grp FROM t;
SELECT grp, count(*), sum(val), max(name) FROM t GROUP BY grp ORDER BY 3 DESC LIMIT 5;
SELECT g.label, avg(t.val) FROM t JOIN g USING(grp) WHERE t.name LIKE 'name1%' GROUP BY g.label ORDER BY 2 LIMIT 5;
SELECT count(*) FROM t WHERE note GLOB '*A*' AND val > 50;
UPDATE t SET val = val * 1.5 WHERE grp IN (SELECT grp FROM g WHERE grp % 3 = 0);
DELETE FROM t WHERE id % 5 = 0;
SELECT count(*), total(val) FROM t;
SELECT name, count(*) AS n FROM t GROUP BY name ORDER BY n DESC, name LIMIT 3;
WITH RECURSIVE fib(a,b,n) AS (SELECT 0,1,0 UNION ALL SELECT b,a+b,n+1 FROM fib WHERE n<60) SELECT max(a) FROM fib;
SELECT sum(length(upper(note)) + instr(note, '7')) FROM t;
