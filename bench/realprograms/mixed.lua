-- bench/realprograms/mixed.lua: the Lua workload of bench/realprograms/run.sh.
--
--   lua mixed.lua [SCALE]      (SCALE: a positive number, default 1; ~1 s of CPU at 1 with -O2)
--
-- A mix of what Lua programs do, each part deterministic (no math.random, no clock): string
-- building and matching (format, concatenation, gsub, find, sub, upper, rep), sorting strings
-- with a Lua comparison function, table inserts and removes, closures created and called, and
-- a recursive function. Prints one line "lua-mixed scale=S checksum=C": the same for every
-- build of the interpreter (run.sh compares it across plain, hooks-only, callprof, uftrace).
local scale = tonumber(arg and arg[1]) or 1
assert(scale > 0, "SCALE must be positive")

local checksum = 0
local function mix(v)
  checksum = (checksum * 31 + v) % 2147483647
end

-- A deterministic generator (Park-Miller), so every run sees the same data.
local seed = 12345
local function rnd(n)
  seed = (seed * 16807) % 2147483647
  return seed % n
end

local words = { "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
                "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa" }

-- 1. Strings: build log-like lines, match and transform them.
local function strings_part(n)
  local total = 0
  for i = 1, n do
    local w = words[rnd(#words) + 1]
    local line = string.format("%05d %s key=%s value=%d", i, w:upper(), w .. i, rnd(100000))
    local k, v = line:match("key=(%a+%d+) value=(%d+)")
    local replaced = line:gsub("%d", "#")
    if line:find("ECHO", 1, true) then total = total + 1 end
    total = total + #k + tonumber(v) % 7 + #replaced + #line:sub(3, 9) + #(w:rep(2, "-"))
  end
  mix(total)
end

-- 2. Sorting strings with a comparison function written in Lua.
local function sort_part(n, rounds)
  for r = 1, rounds do
    local t = {}
    for i = 1, n do
      t[i] = words[rnd(#words) + 1] .. string.format("%06d", rnd(1000000))
    end
    table.sort(t, function(a, b)
      local la, lb = #a, #b
      if la ~= lb then return la < lb end
      return a < b
    end)
    mix(#t[1] + #t[n] + t[n // 2]:byte(1))
  end
end

-- 3. Tables: appends, inserts at a position of a short list (shifting a few elements),
-- removes, and a map keyed by strings.
local function table_part(n)
  local list, short, map = {}, {}, {}
  for i = 1, n do
    table.insert(list, i * 3)
    if #short == 32 then short = {} end
    table.insert(short, i % (#short + 1) + 1, i)
    if i % 5 == 0 then table.remove(list) end
    local key = "k" .. (i % 4096)
    map[key] = (map[key] or 0) + i
  end
  local s = 0
  for _, v in pairs(map) do s = (s + v) % 1000003 end
  mix(#list + #short + s)
end

-- 4. Closures: counters and adders created in a loop and called through a table.
local function closure_part(n)
  local function make_counter(step)
    local c = 0
    return function() c = c + step; return c end
  end
  local function compose(f, g) return function(x) return f(g(x)) end end
  local s = 0
  for i = 1, n do
    local counter = make_counter(i % 7 + 1)
    local add = function(x) return x + i end
    local twice = compose(add, add)
    counter(); s = (s + counter() + twice(i)) % 1000003
  end
  mix(s)
end

-- 5. A recursive function: naive Fibonacci and a recursive tree build and walk.
local function fib(k)
  if k < 2 then return k end
  return fib(k - 1) + fib(k - 2)
end
local function build(depth)
  if depth == 0 then return { v = rnd(100) } end
  return { l = build(depth - 1), r = build(depth - 1) }
end
local function walk(t)
  if t.v then return t.v end
  return walk(t.l) + walk(t.r)
end
local function recursion_part(n)
  for _ = 1, n do mix(fib(20)) end
  for _ = 1, n do mix(walk(build(10))) end
end

local function units(base) return math.max(1, math.floor(base * scale + 0.5)) end
strings_part(units(100000))
sort_part(units(20000), 6)
table_part(units(400000))
closure_part(units(400000))
recursion_part(units(200))
print(string.format("lua-mixed scale=%s checksum=%d", tostring(scale), checksum))
