"""A hand-written single-stage detector whose forward returns a dict of losses.

Mirrors torchvision-style detection training (model(images, targets)
returns {"loss_classifier": ..., "loss_box_reg": ...} and the loop sums
the dict): a small conv backbone on 3x32x32 images, a per-cell
classification head (background + 3 classes, cross-entropy over all 8x8
cells) and a box-regression head (smooth L1 on the positive cell only).
"""
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

NUM_CLASSES, GRID = 3, 8


class TinyDetector(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.cls_head = nn.Conv2d(32, NUM_CLASSES + 1, 1)
        self.box_head = nn.Conv2d(32, 4, 1)

    def forward(self, images, boxes, labels):
        f = self.backbone(images)                                     # B x 32 x 8 x 8
        cls = self.cls_head(f).flatten(2).transpose(1, 2)             # B x 64 x (C+1)
        reg = self.box_head(f).flatten(2).transpose(1, 2)             # B x 64 x 4
        cx, cy = boxes[:, 0] * GRID, boxes[:, 1] * GRID
        cell = cy.long().clamp(max=GRID - 1) * GRID + cx.long().clamp(max=GRID - 1)
        cls_target = torch.zeros(cls.shape[:2], dtype=torch.long)
        cls_target[torch.arange(len(cell)), cell] = labels
        box_target = torch.stack([cx.frac(), cy.frac(), boxes[:, 2] * GRID, boxes[:, 3] * GRID], dim=1)
        return {"loss_cls": F.cross_entropy(cls.reshape(-1, NUM_CLASSES + 1), cls_target.reshape(-1)),
                "loss_box": F.smooth_l1_loss(reg[torch.arange(len(cell)), cell], box_target)}


def make_data(n):
    """One coloured square per image; the class is the channel it lights up."""
    images = 0.1 * torch.randn(n, 3, 32, 32)
    labels = torch.randint(1, NUM_CLASSES + 1, (n,))
    size = torch.randint(4, 10, (n,))
    boxes = torch.zeros(n, 4)
    for i in range(n):
        s = int(size[i])
        x0, y0 = torch.randint(0, 32 - s, (2,)).tolist()
        images[i, labels[i] - 1, y0:y0 + s, x0:x0 + s] += 1.0
        boxes[i] = torch.tensor([(x0 + s / 2) / 32, (y0 + s / 2) / 32, s / 32, s / 32])
    return images, boxes, labels


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=20)
    args = p.parse_args()
    torch.manual_seed(0)

    images, boxes, labels = make_data(256)
    model = TinyDetector()
    opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9, weight_decay=1e-4)
    model.train()
    for step in range(args.steps):
        idx = torch.randint(0, len(images), (16,))
        loss_dict = model(images[idx], boxes[idx], labels[idx])
        loss = sum(loss_dict.values())
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item():.4f} " +
              " ".join(f"{k} {v.item():.4f}" for k, v in loss_dict.items()), flush=True)


if __name__ == "__main__":
    main()
