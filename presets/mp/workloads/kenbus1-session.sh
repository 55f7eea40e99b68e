#!/bin/sh
# About eighteen UNIX commands of an R&D user session (Kenbus1 / SPEC SDM
# style): edit-compile-run, file and text utilities.
set -e
d=$(mktemp -d)
cd "$d"
printf '#include <stdio.h>\nint main(void){int s=0;for(int i=0;i<100;i++)s+=i;printf("%%d\\n",s);return 0;}\n' > prog.c
cc -O -o prog prog.c
./prog > out.txt
ls -l > list.txt
cat prog.c list.txt > both.txt
grep -c main both.txt > /dev/null
sed 's/int/long/g' prog.c > prog2.c
sort list.txt > sorted.txt
wc -l both.txt > /dev/null
cp prog.c copy.c
diff prog.c prog2.c > /dev/null || true
cmp prog.c copy.c
od -c out.txt > /dev/null
awk '{n++} END {print n}' both.txt > /dev/null
tr a-z A-Z < prog.c > upper.txt
head -3 sorted.txt > /dev/null
tail -3 sorted.txt > /dev/null
find . -name '*.c' > /dev/null
mkdir sub
date > /dev/null
cd /
rm -rf "$d"
