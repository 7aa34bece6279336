"""A build backend that needs nothing from an index: one package, one console script."""
import base64, hashlib, os, zipfile

NAME, VERSION = "demo", "0.1.0"
DIST = f"{NAME}-{VERSION}.dist-info"


def get_requires_for_build_wheel(config_settings=None):
    return []


get_requires_for_build_editable = get_requires_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = {
        f"{NAME}/__init__.py": open(os.path.join(NAME, "__init__.py"), "rb").read(),
        f"{DIST}/METADATA": f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\n".encode(),
        f"{DIST}/WHEEL": b"Wheel-Version: 1.0\nGenerator: backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{DIST}/entry_points.txt": b"[console_scripts]\nprint-args = demo:main\n",
    }
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{DIST}/RECORD,,")
    wheel = f"{NAME}-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w") as zf:
        for path, data in files.items():
            zf.writestr(path, data)
        zf.writestr(f"{DIST}/RECORD", "\n".join(record) + "\n")
    return wheel


build_editable = build_wheel
