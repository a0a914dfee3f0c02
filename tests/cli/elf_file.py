"""What the dynamic loader reads in an ELF shared object or program, read here without binutils:
the libraries it needs (DT_NEEDED), its soname and the functions it exports. 64-bit
little-endian files only (x86-64, AArch64), the ones rprof builds."""

import struct

SHT_DYNAMIC, SHT_DYNSYM = 6, 11
DT_NULL, DT_NEEDED, DT_SONAME = 0, 1, 14
STT_FUNC, STB_GLOBAL, STB_WEAK = 2, 1, 2


class ElfFile:
    def __init__(self, path):
        with open(path, "rb") as f:
            self.data = f.read()
        if self.data[:4] != b"\x7fELF" or self.data[4] != 2 or self.data[5] != 1:
            raise ValueError(f"{path}: not a 64-bit little-endian ELF file")
        shoff, = struct.unpack_from("<Q", self.data, 0x28)
        shentsize, shnum = struct.unpack_from("<HH", self.data, 0x3A)
        # (name, type, flags, addr, offset, size, link, info, addralign, entsize)
        self.sections = [struct.unpack_from("<IIQQQQIIQQ", self.data, shoff + i * shentsize)
                         for i in range(shnum)]

    def _section(self, kind):
        return next((s for s in self.sections if s[1] == kind), None)

    def _string(self, table, offset):
        start = self.sections[table][4] + offset
        return self.data[start:self.data.index(b"\0", start)].decode()

    def _dynamic(self):
        dynamic = self._section(SHT_DYNAMIC)
        if dynamic is None:
            return []
        entries = []
        for offset in range(dynamic[4], dynamic[4] + dynamic[5], 16):
            tag, value = struct.unpack_from("<qQ", self.data, offset)
            if tag == DT_NULL:
                break
            if tag in (DT_NEEDED, DT_SONAME):
                entries.append((tag, self._string(dynamic[6], value)))
        return entries

    def needed(self):
        """The DT_NEEDED libraries, in order."""
        return [name for tag, name in self._dynamic() if tag == DT_NEEDED]

    def soname(self):
        return next((name for tag, name in self._dynamic() if tag == DT_SONAME), None)

    def exported_functions(self):
        """Names of the functions this file defines for others (global or weak, in .dynsym)."""
        dynsym = self._section(SHT_DYNSYM)
        names = set()
        for offset in range(dynsym[4], dynsym[4] + dynsym[5], 24):
            name, info, _, shndx = struct.unpack_from("<IBBH", self.data, offset)
            if shndx != 0 and info & 0xF == STT_FUNC and info >> 4 in (STB_GLOBAL, STB_WEAK):
                names.add(self._string(dynsym[6], name))
        return names
