"""Test certificates, made with the openssl command line at test time (no key or
certificate is kept in the repository): a CA, the broker's certificate for localhost and
127.0.0.1, a client certificate signed by the CA, and a second, untrusted CA with a
client certificate of its own.

    c = Certs(directory)
    c.ca, c.server_pem (key and chain, for ssl.keystore.location), c.client_cert,
    c.client_key, c.rogue_cert, c.rogue_key
    c.reissue_server()   # a new broker certificate (new serial) in the same files
"""
import os
import subprocess


def run(*args, cwd):
    subprocess.run(list(args), cwd=cwd, check=True, capture_output=True, timeout=60)


class Certs:
    def __init__(self, directory):
        self.dir = directory
        os.makedirs(directory, exist_ok=True)
        self.ca, self.ca_key = self._ca("ca", "/CN=Strata Test CA")
        self.rogue_ca, self.rogue_ca_key = self._ca("rogue-ca", "/CN=Rogue CA")
        self.server_pem = self.path("server.pem")
        self.serial = 1000
        self.reissue_server()
        self.client_cert, self.client_key = self._leaf("client", "/O=Strata/OU=Clients/CN=alice",
                                                       self.ca, self.ca_key)
        self.rogue_cert, self.rogue_key = self._leaf("rogue", "/CN=mallory", self.rogue_ca,
                                                     self.rogue_ca_key)

    def path(self, name):
        return os.path.join(self.dir, name)

    def _ca(self, name, subject):
        key, cert = self.path(name + ".key"), self.path(name + ".pem")
        run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
            "-days", "2", "-subj", subject, cwd=self.dir)
        return cert, key

    def _leaf(self, name, subject, ca, ca_key, san=None):
        key, csr, cert = self.path(name + ".key"), self.path(name + ".csr"), self.path(name + ".crt")
        run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr,
            "-subj", subject, cwd=self.dir)
        ext = self.path(name + ".ext")
        with open(ext, "w") as f:
            f.write("basicConstraints=CA:FALSE\n")
            if san:
                f.write("subjectAltName=%s\n" % san)
        self.serial = getattr(self, "serial", 1000) + 1
        run("openssl", "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-set_serial",
            str(self.serial), "-out", cert, "-days", "2", "-extfile", ext, cwd=self.dir)
        return cert, key

    def reissue_server(self):
        """A fresh broker certificate; server.pem (key, then certificate) replaced whole."""
        cert, key = self._leaf("server", "/CN=localhost", self.ca, self.ca_key,
                               san="DNS:localhost,IP:127.0.0.1")
        tmp = self.server_pem + ".tmp"
        with open(tmp, "w") as out:
            out.write(open(key).read())
            out.write(open(cert).read())
        os.replace(tmp, self.server_pem)
        return self.serial
