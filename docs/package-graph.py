#!/usr/bin/env python3
"""The package graph of nlspark's production code, drawn from its imports.

Reads every .java file under <module>/src/main/java of the modules the root pom lists, takes each
file's package and the nlspark packages it uses (its import and import static lines, and fully
qualified org.nlspark names in its code, comments stripped), and prints the graph: modules,
packages with their file counts, one arrow per (package -> package it uses), the layers (a package
sits one layer above the highest package it uses), and the cycles (strongly connected components
of more than one package, or of modules: the packages that reach each other through imports).

  docs/package-graph.py              prints the graph as Markdown (a Mermaid diagram and tables)
  docs/package-graph.py --write FILE replaces the part of FILE between the two marker lines
                                     <!-- package-graph:begin --> and <!-- package-graph:end -->
  docs/package-graph.py --check [FILE]
                                     exits 1 when a cycle exists (between packages or modules);
                                     with FILE, also says (without failing) when FILE's graph is
                                     older than the code

Only the standard library; run from anywhere (paths are relative to the repository root).
"""
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEGIN = "<!-- package-graph:begin -->"
END = "<!-- package-graph:end -->"
PREFIX = "org.nlspark"

IMPORT = re.compile(r"^\s*import\s+(?:static\s+)?(org\.nlspark(?:\.\w+)*)(?:\.\*)?\s*;", re.M)
PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.M)
QUALIFIED = re.compile(r"\borg\.nlspark(?:\.[a-z_]\w*)*\.[A-Z]\w*")
COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
JAVA_PACKAGE = re.compile(r'^\s*option\s+java_package\s*=\s*"([\w.]+)"\s*;', re.M)
STRINGS = re.compile(r'"(?:\\.|[^"\\\n])*"')


def modules():
    pom = (ROOT / "pom.xml").read_text(encoding="utf-8")
    return re.findall(r"<module>([^<]+)</module>", pom)


def package_of(name):
    """The package part of a qualified name: the segments before the first capitalised one."""
    parts = []
    for segment in name.split("."):
        if segment[:1].isupper():
            break
        parts.append(segment)
    return ".".join(parts)


def read_graph():
    owner = {}  # package -> module
    files = defaultdict(int)  # package -> .java files
    edges = defaultdict(set)  # package -> packages it uses
    for module in modules():
        src = ROOT / module / "src" / "main" / "java"
        for path in sorted(src.rglob("*.java")):
            text = path.read_text(encoding="utf-8")
            found = PACKAGE.search(text)
            if not found:
                raise SystemExit(f"Cannot read the package of {path.relative_to(ROOT)}: no package line")
            package = found.group(1)
            if owner.setdefault(package, module) != module:
                raise SystemExit(f"Cannot draw the graph: package {package} is in two modules,"
                                 f" {owner[package]} and {module}")
            files[package] += 1
            used = {package_of(m) for m in IMPORT.findall(text)}
            code = STRINGS.sub('""', COMMENTS.sub(" ", text))
            used |= {package_of(m) for m in QUALIFIED.findall(code)}
            edges[package] |= {u for u in used if u != package and u.startswith(PREFIX)}
        # messages compiled from src/main/proto: their java_package is the module's too
        for path in sorted((ROOT / module / "src" / "main" / "proto").rglob("*.proto")):
            found = JAVA_PACKAGE.search(path.read_text(encoding="utf-8"))
            if found:
                owner.setdefault(found.group(1), module)
                files[found.group(1)] += 0
    for package, used in edges.items():
        unknown = sorted(u for u in used if u not in owner)
        if unknown:
            raise SystemExit(f"Cannot draw the graph: {package} uses {', '.join(unknown)},"
                             " which no module's src/main holds")
    return owner, files, edges


def cycles(nodes, edges):
    """Strongly connected components of more than one node (Tarjan), each sorted; iterative."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def layers(nodes, edges):
    """Layer 0 uses no other package; a package sits one above the highest package it uses."""
    layer = {}

    def depth(node, seen=()):
        if node in layer:
            return layer[node]
        if node in seen:  # only reached with a cycle, which --check reports
            return 0
        below = [depth(u, seen + (node,)) for u in edges.get(node, ())]
        layer[node] = 1 + max(below) if below else 0
        return layer[node]

    for node in nodes:
        depth(node)
    return layer


def short(package):
    return package[len(PREFIX) + 1:] if package.startswith(PREFIX + ".") else package


def markdown(owner, files, edges):
    packages = sorted(owner)
    module_edges = defaultdict(set)
    for package, used in edges.items():
        for u in used:
            if owner[u] != owner[package]:
                module_edges[owner[package]].add(owner[u])
    package_cycles = cycles(packages, edges)
    module_cycles = cycles(set(owner.values()), module_edges)
    layer = layers(packages, edges)
    arrows = sum(len(v) for v in edges.values())
    out = []
    out.append(f"Generated by `docs/package-graph.py` from the imports of `src/main` ({len(packages)}"
               f" packages, {sum(files.values())} files, {arrows} arrows).")
    out.append("")
    out.append(f"**Cycles: {len(package_cycles)} between packages, {len(module_cycles)} between"
               " modules.**" + (" Every arrow points down a layer." if not package_cycles else ""))
    for c in package_cycles + module_cycles:
        out.append(f"- a cycle among: {', '.join(short(p) for p in c)}")
    out.append("")
    out.append("Modules (an arrow: the module's code imports the other's):")
    out.append("")
    for module in sorted(set(owner.values()), key=list(owner.values()).index):
        used = sorted(module_edges.get(module, ()))
        out.append(f"- `{module}` -> {', '.join(f'`{u}`' for u in used) if used else 'nothing of nlspark'}")
    out.append("")
    out.append("```mermaid")
    out.append("flowchart TD")
    ids = {p: "p" + str(i) for i, p in enumerate(packages)}
    by_module = defaultdict(list)
    for p in packages:
        by_module[owner[p]].append(p)
    for module, members in by_module.items():
        out.append(f"  subgraph {module.replace('-', '_')}[{module}]")
        for p in members:
            out.append(f"    {ids[p]}[\"{short(p)}\"]")
        out.append("  end")
    for p in packages:
        for u in sorted(edges.get(p, ())):
            out.append(f"  {ids[p]} --> {ids[u]}")
    out.append("```")
    out.append("")
    out.append("| layer | package | module | files | uses |")
    out.append("| --- | --- | --- | --- | --- |")
    for p in sorted(packages, key=lambda q: (-layer[q], q)):
        used = ", ".join(short(u) for u in sorted(edges.get(p, ()))) or "—"
        out.append(f"| {layer[p]} | `{short(p)}` | {owner[p]} | {files[p]} | {used} |")
    return "\n".join(out) + "\n", package_cycles, module_cycles


def replace_block(text, block, where):
    if BEGIN not in text or END not in text:
        raise SystemExit(f"Cannot write the graph into {where}: it has no {BEGIN} ... {END} lines")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + BEGIN + "\n" + block + END + tail


def main(argv):
    owner, files, edges = read_graph()
    block, package_cycles, module_cycles = markdown(owner, files, edges)
    if len(argv) >= 2 and argv[0] == "--write":
        path = Path(argv[1])
        path.write_text(replace_block(path.read_text(encoding="utf-8"), block, path), encoding="utf-8")
        return 0
    if argv and argv[0] == "--check":
        for c in package_cycles + module_cycles:
            print("package-graph: a cycle among " + ", ".join(c)
                  + " (each reaches the others through imports)", file=sys.stderr)
        if len(argv) >= 2:
            path = Path(argv[1])
            text = path.read_text(encoding="utf-8")
            if replace_block(text, block, path) != text:
                print(f"package-graph: note: the graph in {argv[1]} is older than the code;"
                      f" docs/package-graph.py --write {argv[1]} redraws it", file=sys.stderr)
        print(f"package-graph: {len(owner)} packages, {len(package_cycles)} package cycles,"
              f" {len(module_cycles)} module cycles")
        return 1 if package_cycles or module_cycles else 0
    if argv:
        print(__doc__, file=sys.stderr)
        return 2
    sys.stdout.write(block)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
